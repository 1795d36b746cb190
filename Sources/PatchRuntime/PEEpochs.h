/* Epoch-based reclamation: lets the hot path read the dispatcher's layer lists with no lock and no
   reference counting. A reader announces the epoch it entered in; a writer that unlinks a node
   retires it, and the node is destroyed once every reader that might still see it has left.
   Entering and leaving are inline: they are on the path of every hooked call.
   Every layer record goes through here, so the hot path has one read discipline:
     hooks          PEHooks.m      unlinked by PEHookRemove / PEHooksClearObject, destroyHook
     hook plans     PEHookPlan.m   replaced by PESlotRebuildPlanLocked, destroyPlan
     swizzle layers PESwizzle.m    unlinked by -[PESwizzleLayerToken remove], destroyLayer
     patch tokens   PEDispatcher.m retired by the engine after a revert (PEPatchTokenRetire); the
                                   engine's releaser frees its JSMethod (MethodPatch.swift)
   Slots themselves are never freed (PEDispatcher.m). Live counts: PELiveRecords.h. */
#ifndef PE_EPOCHS_H
#define PE_EPOCHS_H
#include <stdbool.h>
#include <stdint.h>

typedef struct PEEpochRecord {
    uint64_t epoch;             /* 0 when outside a read section */
    unsigned depth;
    struct PEEpochRecord *next;
} PEEpochRecord;

extern uint64_t PEEpochGlobal;
extern __thread PEEpochRecord *PEEpochThreadRecord;
/* True unless writers issue a process-wide barrier (PEProcessBarrier) before they scan readers;
   then a reader's announcement needs only to stay in program order. */
extern bool PEEpochReadersFence;
PEEpochRecord *PEEpochRegisterThread(void);
/* This thread's record (registered on first use): never freed, so it names the thread for good. */
static inline PEEpochRecord *PEEpochThisThread(void) {
    PEEpochRecord *r = PEEpochThreadRecord;
    return r ? r : PEEpochRegisterThread();
}

/* Enter and leave a read section (nesting is fine; only the outermost counts). */
static inline void PEEpochEnter(void) {
    PEEpochRecord *r = PEEpochThreadRecord;
    if (__builtin_expect(!r, 0)) r = PEEpochRegisterThread();
    if (r->depth++ == 0) {
        __atomic_store_n(&r->epoch, __atomic_load_n(&PEEpochGlobal, __ATOMIC_ACQUIRE), __ATOMIC_RELAXED);
        /* The announcement must be visible before this thread reads any list. */
        if (PEEpochReadersFence) __atomic_thread_fence(__ATOMIC_SEQ_CST);
        else __atomic_signal_fence(__ATOMIC_SEQ_CST);
    }
}

static inline void PEEpochExit(void) {
    PEEpochRecord *r = PEEpochThreadRecord;
    if (r && --r->depth == 0) __atomic_store_n(&r->epoch, 0, __ATOMIC_RELEASE);
}

/* Destroys `item` with `destroy` once no reader that entered before this call is still inside;
   maybe now, maybe at a later retire. Must not be called with locks that `destroy` or readers
   need (destroy may release blocks, which can run JavaScript). */
void PEEpochRetire(void *item, void (*destroy)(void *));

#endif
