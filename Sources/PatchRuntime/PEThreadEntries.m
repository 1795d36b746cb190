/* The engine's entries into JavaScript per thread (PEThreadEntries.h). */
#include "PEThreadEntries.h"

static _Thread_local unsigned depth;
static _Thread_local uint64_t current;
static _Thread_local bool terminated;
static uint64_t lastEntry;

uint64_t PEThreadEntryBegin(void) {
    if (depth++ > 0) return 0;
    current = __atomic_add_fetch(&lastEntry, 1, __ATOMIC_RELAXED);
    return current;
}

void PEThreadEntryEnd(void) {
    if (depth == 0 || --depth > 0) return;
    current = 0;
    terminated = false;
}

uint64_t PEThreadEntryCurrent(void) { return current; }
void PEThreadEntryMarkTerminated(void) { terminated = true; }
bool PEThreadEntryWasTerminated(void) { return terminated; }

static _Thread_local void *currentEngine;

void *PEThreadEngineCurrent(void) { return currentEngine; }

void *PEThreadEngineSwap(void *engine) {
    void *previous = currentEngine;
    currentEngine = engine;
    return previous;
}

static _Thread_local void *replayingEngine;

void *PEThreadReplaying(void) { return replayingEngine; }

void *PEThreadReplayingSwap(void *engine) {
    void *previous = replayingEngine;
    replayingEngine = engine;
    return previous;
}
