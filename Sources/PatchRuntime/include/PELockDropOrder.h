/* The order in which threads are inside the engine's JS → native callbacks, and the wait that
   replaces JavaScriptCore's spin (docs/threads.md, "The drop-order tracker").

   JavaScriptCore drops the VM's API lock around every native callback and takes it back in
   drop order, last dropped first back: a thread whose native call returned while a thread that
   dropped later is still in its native call spins (lock, compare, unlock, yield) inside
   `grabAllLocks` until that thread is back. Here a callback records its thread on entry (Push)
   and, when its native work is done, blocks on a condition variable until no thread recorded
   after it is still inside a callback (Pop); JavaScriptCore's grab then succeeds at once.

   The record is made after JavaScriptCore's drop, so two threads can be recorded in the other
   order than JavaScriptCore's. A record says whether its order against each earlier one is
   proven: the thread's JS began (entry or resumption) after the earlier record was made. A wait
   on an unproven record is bounded (PE_LOCK_DROP_UNPROVEN_WAIT_MS), then the thread goes back to
   JavaScriptCore's own order. Clients: Engine's `entering` (JSBegin/JSEnd) and its three callback
   kinds (native functions, `N.send`, block functions; `Engine.afterLockDrop`). */
#ifndef PE_LOCK_DROP_ORDER_H
#define PE_LOCK_DROP_ORDER_H
#include <stdbool.h>
#include <stdint.h>
#include "PEThreadEntries.h"

/* How long a thread waits for a later-recorded thread whose order is not proven, in ms. */
#define PE_LOCK_DROP_UNPROVEN_WAIT_MS 20

typedef struct PELockDropRecord PELockDropRecord;

/* First thing in a JS → native callback (the API lock of `vm` has just been dropped). A record
   waits only for later records of the same VM: each VM has its own lock and drop order.
   `occupancy`: the VM's count of threads with an entry open, PEVMOpenEntry per thread
   (Engine.occupancy), or NULL when the calling thread's entry is not counted there. While the
   calling thread is alone in the VM, Push and Pop take no lock. */
PELockDropRecord *PELockDropOrderPush(const void *vm, const long *occupancy);
/* Last thing before the callback returns to JavaScriptCore: waits (blocked, not spinning) until
   no thread recorded later is still inside a callback, or — for a later record whose order is not
   proven — at most PE_LOCK_DROP_UNPROVEN_WAIT_MS; then removes the record. */
void PELockDropOrderPop(PELockDropRecord *record);

/* Around every entry into JS the engine makes, after taking the API lock: this thread's JS
   begins now. Returns what JSEnd restores. */
uint64_t PELockDropOrderJSBegin(void);
void PELockDropOrderJSEnd(uint64_t saved);

/* Counts since the process started: Pops that waited, waits that ended by the bound, and records
   made while a thread recorded earlier was inside a callback with an order not proven against
   this one (where the bound may apply). */
uint64_t PELockDropOrderWaits(void);
uint64_t PELockDropOrderBoundedFallbacks(void);
uint64_t PELockDropOrderUnprovenRecords(void);

/* Test seam: called on the callback's thread between JavaScriptCore's drop and the record
   (NULL: none), so a test can force the two orders apart. */
void PELockDropOrderSetBeforePushHook(void (*hook)(void));
#endif
