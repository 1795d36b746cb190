/* The engine's "started" flag (PEEngineStarted.h). */
#include "PEEngineStarted.h"

static bool started;

void PEEngineMarkStarted(void) { __atomic_store_n(&started, true, __ATOMIC_RELEASE); }
bool PEEngineIsStarted(void) { return __atomic_load_n(&started, __ATOMIC_ACQUIRE); }
