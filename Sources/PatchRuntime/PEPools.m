/* Autorelease pools around bridged calls, batched per thread (see PEPools.h). */
#include "PEInternal.h"
#include "PEPools.h"

/* Pools pushed through this file and not popped yet, the batch included. */
static __thread uint32_t poolDepth;
/* The batch of the JS running on this thread (pool NULL: none yet). */
static __thread PEPoolBatchState batch;

/* A class message names its class by string on GCC's runtime (a lookup per send, more than the
   pool itself costs): the class is looked up once. */
static inline void *push(void) {
    static void *poolClass;
    PEEnsureThreadRegistered();
    Class cls = (Class)__atomic_load_n(&poolClass, __ATOMIC_RELAXED);
    if (!cls) __atomic_store_n(&poolClass, (void *)(cls = [NSAutoreleasePool class]), __ATOMIC_RELAXED);
    void *pool = [cls new];
    poolDepth++;
    return pool;
}

static inline void drainBatch(void) {
    void *pool = batch.pool;
    batch.pool = NULL;
    poolDepth = batch.depth - 1;   /* draining a pool drains any pushed above it */
    [(NSAutoreleasePool *)pool drain];
}

void *PEPoolPush(void) { return push(); }

void PEPoolPop(void *pool) {
    if (!pool) return;
    if (batch.pool && batch.depth == poolDepth) drainBatch();
    poolDepth--;
    [(NSAutoreleasePool *)pool drain];
}

void *PEPoolBatchEnter(void) {
    if (batch.active++ || (batch.pool && batch.depth != poolDepth)) return push();
    if (batch.pool) {
        if (++batch.calls < PE_POOL_BATCH_CALLS) return NULL;
        drainBatch();
    }
    batch.pool = push();
    batch.depth = poolDepth;
    batch.calls = 0;
    return NULL;
}

void PEPoolBatchExit(void *token) {
    batch.active--;
    if (token) PEPoolPop(token);
}

void PEPoolEntryBegin(PEPoolBatchState *outer) {
    *outer = batch;
    batch = (PEPoolBatchState){ 0 };
}

void PEPoolEntryEnd(const PEPoolBatchState *outer) {
    if (batch.pool) drainBatch();
    batch = *outer;
}

uint32_t PEPoolDepthOnThisThread(void) { return poolDepth; }
