/* The slot record and the hooks between the dispatcher and its entry routes (internal). */
#ifndef PE_SLOT_H
#define PE_SLOT_H
#include "PEInternal.h"
#include "PEDispatch.h"
#include <pthread.h>


struct PESlot {
    Class cls;
    SEL sel;                        /* typed with the runtime encoding on GCC's runtime */
    char *selectorName;
    const PESignature *signature;
    IMP ownIMP;                     /* the class's own implementation before the slot, or NULL */
    IMP entryIMP;                   /* what the class's method points at while installed */
    Method ownMethod;               /* the class's own method for sel once known (PEReplaceMethod);
                                       written under slotLock, a class never loses a method */
    PERoute route;
    uintptr_t patchToken;           /* read and written with __atomic builtins; read and used inside an
                                       epoch, retired (PEPatchTokenRetire) when replaced */
    void *closure;                  /* ffi_closure for PERouteClosure, when libffi made the entry */
    bool installed;
    bool clearsObjectState;         /* -dealloc of a class whose objects carry JS properties or hooks */
    /* Layers added by the toolkit: changed under PELayerLock, read with no lock inside an epoch;
       unlinked layers are retired through the epochs. */
    unsigned hookCount;
    struct PEHook *hooks;           /* registration order */
    unsigned swizzleCount;
    struct PESwizzleLayer *swizzles; /* newest first: the outermost runs first */
    /* Set while the slot's layers can run without a generic frame (PEHookPlan.m); replaced under
       PELayerLock, read with no lock inside an epoch. */
    struct PEHookPlan *plan;
    struct PESlot *next;            /* hash chain */
};

extern pthread_rwlock_t PELayerLock;

/* The pipeline pieces (PEDispatcher.m): the patch or what's below it, and the base alone. */
void PESlotInvokeCore(PESlot *slot, PEFrame *frame);
void PESlotInvokeBase(PESlot *slot, PEFrame *frame);
/* Hooks and swizzles (PEHooks.m, PESwizzle.m). */
void PEHooksRun(PESlot *slot, PEFrame *frame);
void PESwizzlesRun(PESlot *slot, PEFrame *frame, struct PESwizzleLayer *below);
/* Per-object state dropped by address after -dealloc (when it could not be taken aside before). */
void PEObjectStateClear(void *obj);
/* Before -dealloc runs: its memory can be freed and reused for a new object before the state is
   cleared, so the dying object's instance hooks are marked to reach calls on this thread only. */
void PEHooksObjectDeallocating(void *object);
/* The dying object's JS properties, moved onto this thread's -dealloc stack while its -dealloc
   runs (NULL: not deallocating on this thread; *result NULL: none yet). */
void **PEDeallocatingPropertiesOnThisThread(void *object);
void PEPropertyClear(void *obj);
/* Takes the object's properties out of the address-keyed table (retained; NULL if none). */
void *PEPropertyDetach(void *obj);
void PEPropertiesRelease(void *properties);
bool PESlotEnableObjectStateCleanup(Class cls, char **error);
void PEZeroReturn(PEFrame *frame);
/* Points the class's method back at the slot's entry if a revert had released it. */
void PESlotEnsureInstalled(PESlot *slot);
/* Iterates every slot (NULL starts); used under PELayerLock to find hooks and swizzles. */
PESlot *PESlotEnumerate(PESlot *after);
void PEHooksClearObject(void *object);
/* After the -dealloc core: removes the hooks this thread marked dying for `object`, not those a
   new object at the same address got meanwhile. */
void PEHooksClearDying(void *object);

bool PESlotHasLayers(const PESlot *slot);
/* The route a slot takes, given the preferred one (some methods always take the closure route;
   without libffi, methods whose arguments don't fit in registers always take the forwarding one). */
PERoute PESlotChooseRoute(Class cls, const char *selector, const PESignature *signature, PERoute preferred);
/* Whether a closure-route entry can be made for the signature (PEClosureEntry.m). */
bool PEClosureEntryAvailable(const PESignature *signature);
/* Builds the IMP the class's method is pointed at (PEForwarding.m / PEClosureEntry.m). */
IMP PESlotMakeEntry(PESlot *slot, char **error);
/* A closure-route entry, leaving `reserve` register entries in the pool (PEInternal.h). */
IMP PEClosureEntryMake(PESlot *slot, unsigned reserve, char **error);
/* What a call of `selector` resolved from class `start` (inclusive) runs: an installed slot (returned),
   or, when NULL is returned, the native implementation in *imp and the class that defines it in
   *owner (*imp NULL when nothing answers). PEInvokeFromClass runs what this finds. */
PESlot *PEResolveFromClass(Class start, SEL sel, const char *selector, IMP *imp, Class *owner);
/* The class whose native implementation of `selector` is running on this thread for `receiver`. */
Class PENativeCallerClass(id receiver, const char *selector);

/* Native implementations running below a slot, per thread: lets the forwarding route tell a
   native [super foo] (which re-enters through the parent's forwarding IMP with the same receiver)
   from a fresh call. Only kept while some slot takes the forwarding route. */
#define PE_NATIVE_DEPTH 64
typedef struct PENativeCall { id receiver; SEL sel; Class owner; } PENativeCall;
extern __thread PENativeCall PENativeCalls[PE_NATIVE_DEPTH];
extern __thread unsigned PENativeCallDepth;
extern unsigned PEForwardingSlotCount;      /* slots on the forwarding route, ever */

static inline bool PENativeCallBegin(id receiver, SEL sel, Class owner) {
    if (!__atomic_load_n(&PEForwardingSlotCount, __ATOMIC_RELAXED) || PENativeCallDepth >= PE_NATIVE_DEPTH)
        return false;
    PENativeCalls[PENativeCallDepth] = (PENativeCall){ receiver, sel, owner };
    PENativeCallDepth++;
    return true;
}
static inline void PENativeCallEnd(bool tracked) { if (tracked) PENativeCallDepth--; }

/* Plans (PEHookPlan.m). Rebuilds the slot's plan from its current layers; the caller holds
   PELayerLock for writing and passes the replaced plan, chained through `retired`, to
   PEHookPlansRetire once the lock is released (readers may still stand on it). */
void PESlotRebuildPlanLocked(PESlot *slot, struct PEHookPlan **retired);
void PEHookPlansRetire(struct PEHookPlan *retired);
/* Makes `change` (may be NULL) to one slot's layers and rebuilds its plan, both under PELayerLock,
   then retires the replaced plan: for a caller that holds no lock. */
void PESlotChangeLayers(PESlot *slot, void (^change)(void));

#endif
