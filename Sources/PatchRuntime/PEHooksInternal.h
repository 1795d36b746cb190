/* What the hook files share inside the runtime core: the hook record, and the info object handed
   to hook blocks (PEHookInfo.m), made and recycled inline because every hooked call does both. */
#ifndef PE_HOOKS_INTERNAL_H
#define PE_HOOKS_INTERNAL_H
#include "PESlot.h"
#include "PEAspects.h"
#include "PEEpochs.h"

struct PEHook {
    uint64_t identifier;
    PESlot *slot;
    int position;
    bool automaticRemoval;
    void *object;                   /* NULL: every instance */
    /* Set (never cleared) once the object's -dealloc has begun: the thread running it, as its
       epoch record. Its memory may be freed and handed to a new object before the hook is
       unlinked, so from then on only that thread's calls (made by the dying object's own
       -dealloc) reach the hook. */
    PEEpochRecord *dyingOn;
    void *block;
    const PESignature *blockSignature;
    struct PEHook *next;
    struct PEHook *retiredNext;     /* chains hooks just unlinked, until they are retired */
};

/* Whether instance hook `h` (h->object set) applies to a call on `receiver`: the same address,
   and not an object whose -dealloc began on another thread (the address may already belong to a
   new object there: PEHooksObjectDeallocating). */
static inline bool PEHookReachesReceiver(const struct PEHook *h, id receiver) {
    if (h->object != (void *)receiver) return false;
    PEEpochRecord *dying = __atomic_load_n(&h->dyingOn, __ATOMIC_ACQUIRE);
    return !dying || dying == PEEpochThreadRecord;
}

/* The NSInvocation stand-in behind -originalInvocation: reads and writes the call's frame. */
@interface PEHookInvocation : NSObject {
@public
    PESlot *_slot;
    PEFrame *_frame;
}
@end

@interface PEAspectInfo : NSObject <PEAspectInfoInvoking> {
@public
    id _instance;
    PESlot *_slot;
    PEFrame *_frame;
    PEHookInvocation *_invocation;
    NSArray *_arguments;
    BOOL _escaped;                  /* retained by a hook: not reused for the next call */
}
@end

/* One info object per thread is reused while nobody else kept it (the common case). */
extern __thread PEAspectInfo *PEHookSpareInfo;

static inline PEAspectInfo *PEHookInfoMake(id instance, PESlot *slot, PEFrame *frame) {
    PEAspectInfo *info = PEHookSpareInfo;
    PEHookSpareInfo = nil;
    if (__builtin_expect(!info, 0)) info = [PEAspectInfo new];
    info->_instance = instance;
    info->_slot = slot;
    info->_frame = frame;
    return info;
}

void PEHookInfoRecycle(PEAspectInfo *info);

/* The call has returned: the info (and its invocation) no longer reach the frame. */
static inline void PEHookInfoFinish(PEAspectInfo *info) {
    info->_frame = NULL;
    /* Reused unless a hook kept it (its -retain marks that), without a message on the common path. */
    if (!info->_escaped && !info->_invocation && !info->_arguments && !PEHookSpareInfo) {
        info->_instance = nil;
        PEHookSpareInfo = info;
    } else {
        PEHookInfoRecycle(info);
    }
}

#endif
