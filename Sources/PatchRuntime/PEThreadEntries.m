/* The engine's entries into JavaScript per thread (PEThreadEntries.h). */
#include "PEThreadEntries.h"

static _Thread_local unsigned depth;
static _Thread_local uint64_t current;
static _Thread_local bool terminated;
static uint64_t lastEntry;
static long openThreads;

uint64_t PEThreadEntryBegin(bool *othersOpen) {
    if (depth++ > 0) return 0;
    *othersOpen = __atomic_fetch_add(&openThreads, 1, __ATOMIC_RELAXED) > 0;
    current = __atomic_add_fetch(&lastEntry, 1, __ATOMIC_RELAXED);
    return current;
}

void PEThreadEntryEnd(void) {
    if (depth == 0 || --depth > 0) return;
    current = 0;
    terminated = false;
    __atomic_fetch_sub(&openThreads, 1, __ATOMIC_RELAXED);
}

uint64_t PEThreadEntryCurrent(void) { return current; }
void PEThreadEntryMarkTerminated(void) { terminated = true; }
bool PEThreadEntryWasTerminated(void) { return terminated; }
long PEThreadEntryOpenThreads(void) { return __atomic_load_n(&openThreads, __ATOMIC_RELAXED); }

static _Thread_local void *currentEngine;

void *PEThreadEngineCurrent(void) { return currentEngine; }

void *PEThreadEngineSwap(void *engine) {
    void *previous = currentEngine;
    currentEngine = engine;
    return previous;
}
