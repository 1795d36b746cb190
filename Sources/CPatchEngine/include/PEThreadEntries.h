/* The engine's entries into JavaScript, per thread: which outermost entry a thread is in, and whether the execution time limit ended the thread's entry.
   The time limit (ExecutionTimeLimit.swift) needs them to judge a thread by its own entry, not
   by whichever thread JavaScriptCore's watchdog measured (docs/threads.md); whether another
   thread has an entry open in the same VM is counted per VM (the upper bits of `Engine.occupancy`).
   In C for the thread-local storage and atomics (Swift's Atomic needs macOS 15; the package
   supports 13). */
#ifndef PE_THREAD_ENTRIES_H
#define PE_THREAD_ENTRIES_H
#include <stdbool.h>
#include <stdint.h>

/* One thread's entry in a VM's occupancy word (Engine.occupancy): entries count from bit 16 up,
   threads holding the VM for a call (VMPool, at most one) below. 16, not 32: `long` and Swift's
   Int are 32 bits on arm64_32. */
static const long PEVMOpenEntry = 1L << 16;

/* Begins an entry on this thread. For the thread's outermost entry returns its number (unique in
   the process, never 0); for a nested entry returns 0. */
uint64_t PEThreadEntryBegin(void);
/* Ends the entry begun last on this thread; true when that was the thread's outermost. */
bool PEThreadEntryEnd(void);
/* Whether the thread's innermost entry is its outermost one and no JS is below it on the
   thread's stack (JS a C API call ran outside every entry, whose native callback made this
   entry): where JavaScriptCore itself would run the promise jobs queued (JSEntry.swift, `settled`). */
bool PEThreadEntryIsOutermostJS(void);
/* Around a native callback of JS that runs outside every entry (Engine.afterLockDrop). */
void PEThreadCallbackOutsideEntriesBegin(void);
void PEThreadCallbackOutsideEntriesEnd(void);
/* The number of this thread's open outermost entry; 0 when the thread is in none. */
uint64_t PEThreadEntryCurrent(void);
/* Marks this thread's open entry as ended by the time limit (until its outermost entry ends). */
void PEThreadEntryMarkTerminated(void);
bool PEThreadEntryWasTerminated(void);
/* Without JavaScriptCore's watchdog the end is thrown at a check point (ExecutionTimeLimit
   .endsByThrowing): marks that it was thrown in this thread's innermost open entry; Take answers
   whether it was (once: the entry that settles it consumes it), so JS around a nested entry that
   was ended goes on until its own next check point, as with the watchdog. */
void PEThreadEntryMarkEndThrown(void);
bool PEThreadEntryTakeEndThrown(void);
/* The limits' clock of this thread's entries (ExecutionTimeLimit): which outermost entry is
   measured, this thread's CPU time when its measure began (its first tock, or its start when it
   was armed at its start), whether it was armed at its start, and whether it is registered with
   the limits' monitor (LimitMonitor.swift) until its end. Read and written by its own thread only. */
typedef struct PEThreadEntryClock {
    uint64_t entry;
    double start;
    bool armedAtStart;
    bool registered;
} PEThreadEntryClock;
PEThreadEntryClock *PEThreadEntryClockCurrent(void);
/* CPU seconds this thread has run (a system call on Linux: only at check points). */
double PEThreadCPUTime(void);
/* The engine (an `Engine` instance: one JavaScriptCore VM) of this thread's innermost entry, or
   NULL outside every entry. Entries swap it in and back (Engine.entering); a native → JS call
   made on a thread already inside an entry stays in that entry's VM (docs/threads.md). */
void *PEThreadEngineCurrent(void);
void *PEThreadEngineSwap(void *engine);
/* The engine this thread holds with its entry counted (Engine.claimWithEntryIfFree, the patched
   call's fast path), or NULL: its entries inside the hold count nothing more in its occupancy. */
void *PEThreadClaimedEngine(void);
void *PEThreadClaimedEngineSwap(void *engine);
/* The engine whose replay (a secondary VM catching up, Replay.swift) is the JS of this thread's
   innermost entry, or NULL. A replay's refusals apply to that JS only: not to another thread in
   the VM meanwhile (JavaScriptCore drops the VM's lock around each of the replay's native calls,
   so a block made in that VM can run there on another thread), nor to app code those native
   calls run on this thread (a class's +initialize making a patched call or calling a block: a
   new entry, which starts with NULL: Engine.entering). */
void *PEThreadReplaying(void);
void *PEThreadReplayingSwap(void *engine);
#endif
