#ifndef PE_POOLS_H
#define PE_POOLS_H
/* Autorelease pools around bridged calls (PEPools.m).

   Objects a bridged call autoreleases (a method's autoreleased result, NSStrings made from JS
   strings, C string copies) must be released once the call is over, or a JS loop calling a
   method a million times keeps a million objects. A pool per call does that, but on GNUstep
   making and draining an NSAutoreleasePool costs ≈ 45 ns, as much as the rest of a JS →
   Objective-C call. So calls from JS share a *batch* pool per thread, drained every
   PE_POOL_BATCH_CALLS calls and whenever the JS that made them returns to native code: an
   autoreleased object lives at most that many calls longer, never past the native code that ran
   the JS.

   The batch only ever sits on top of the thread's pool stack when it is drained: every entry
   into JS from native code (PEPoolEntryBegin/End, in the engine's single call and evaluate
   funnel) hides the batch of the JS around it, so a pool native code pushed in between is never
   drained from inside; and PEPoolPop of a pool drains a batch pushed above it first. */
#include <stdint.h>

#define PE_POOL_BATCH_CALLS 256

/* A pool of its own (evaluate, helpers that call native code once). */
void *PEPoolPush(void);
/* Pops `pool` (and a batch pool pushed above it). */
void PEPoolPop(void *pool);

/* Around a call from JS into native code. Enter makes sure a batch pool is on top, draining it
   first when it has served PE_POOL_BATCH_CALLS calls, and returns NULL; or, for a call made while
   another is still converting its arguments (a getter run by a conversion) or while a pool of the
   bridge's own stands above the batch, a pool for this call alone. Exit takes what Enter returned.
   A batch is never drained while a call that may have autoreleased into it is in progress. */
void *PEPoolBatchEnter(void);
void PEPoolBatchExit(void *token);

/* The thread's batch state, saved while JS entered from native code runs. */
typedef struct PEPoolBatchState {
    void *pool;
    uint32_t depth, calls, active;
} PEPoolBatchState;
/* Around every entry into JS from native code: hides the batch of the JS that is running further
   out (if any) in `outer` and restores it after draining the batch the entered JS opened. The
   state goes through the caller's storage, not by value: a 24-byte struct returned and passed by
   value was written field by field and read back whole, a store-forwarding stall per call. */
void PEPoolEntryBegin(PEPoolBatchState *outer);
void PEPoolEntryEnd(const PEPoolBatchState *outer);

/* Pools the calling thread holds through these functions (tests). */
uint32_t PEPoolDepthOnThisThread(void);
#endif
