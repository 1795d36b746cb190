/* The engine's entries into JavaScript per thread (PEThreadEntries.h). */
#include "PEThreadEntries.h"
#include <time.h>

static _Thread_local unsigned depth;
static _Thread_local uint64_t current;
static _Thread_local bool terminated;
static uint64_t lastEntry;

/* Numbers are handed to each thread in blocks, so an entry takes no atomic operation on a word
   every thread writes (one per patched call before): this thread's next number and its block's end. */
#define PE_ENTRY_BLOCK 4096
static _Thread_local uint64_t nextEntry, blockEnd;

uint64_t PEThreadEntryBegin(void) {
    if (depth++ > 0) return 0;
    if (nextEntry == blockEnd) {
        blockEnd = __atomic_add_fetch(&lastEntry, PE_ENTRY_BLOCK, __ATOMIC_RELAXED);
        nextEntry = blockEnd - PE_ENTRY_BLOCK + 1;   /* never 0 */
    }
    current = nextEntry++;
    return current;
}

static _Thread_local unsigned endThrownDepth;

bool PEThreadEntryEnd(void) {
    if (depth == 0 || --depth > 0) return false;
    current = 0;
    terminated = false;
    endThrownDepth = 0;
    return true;
}

void PEThreadEntryMarkEndThrown(void) { endThrownDepth = depth; }

bool PEThreadEntryTakeEndThrown(void) {
    if (depth == 0 || endThrownDepth != depth) return false;
    endThrownDepth = 0;
    return true;
}

static _Thread_local unsigned callbacksOutsideEntries;

bool PEThreadEntryIsOutermostJS(void) { return depth == 1 && callbacksOutsideEntries == 0; }
void PEThreadCallbackOutsideEntriesBegin(void) { callbacksOutsideEntries++; }
void PEThreadCallbackOutsideEntriesEnd(void) { callbacksOutsideEntries--; }

uint64_t PEThreadEntryCurrent(void) { return current; }
void PEThreadEntryMarkTerminated(void) { terminated = true; }
bool PEThreadEntryWasTerminated(void) { return terminated; }

static _Thread_local PEThreadEntryClock entryClock;

PEThreadEntryClock *PEThreadEntryClockCurrent(void) { return &entryClock; }

double PEThreadCPUTime(void) {
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return 0;
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static _Thread_local void *currentEngine;

void *PEThreadEngineCurrent(void) { return currentEngine; }

void *PEThreadEngineSwap(void *engine) {
    void *previous = currentEngine;
    currentEngine = engine;
    return previous;
}

static _Thread_local void *claimedEngine;

void *PEThreadClaimedEngine(void) { return claimedEngine; }

void *PEThreadClaimedEngineSwap(void *engine) {
    void *previous = claimedEngine;
    claimedEngine = engine;
    return previous;
}

static _Thread_local void *replayingEngine;

void *PEThreadReplaying(void) { return replayingEngine; }

void *PEThreadReplayingSwap(void *engine) {
    void *previous = replayingEngine;
    replayingEngine = engine;
    return previous;
}
