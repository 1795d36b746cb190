/* Plans: the fast path of a hooked call. When a slot's only layers are Before and After hooks over
   its class's own register-only implementation, which is what Aspects-style logging and analytics
   hooks are, a call needs none of the generic pipeline: the plan is an immutable list of the
   hook blocks to call, in running order, with their invoke functions looked up once. It is rebuilt
   under PELayerLock whenever any layer of the slot changes (hooks, patch, swizzles), published
   with one store, read with no lock inside an epoch, and retired through the epochs.
   Everything else (Instead hooks, automatic removal, a JS patch, swizzles, inherited methods,
   other signatures) runs through PEHooksRun and the generic pipeline, with identical results. */
#include "PEHooksInternal.h"
#include "PEHooks.h"
#include "PEEpochs.h"
#include "PEBlocks.h"

void *PEBlockGetInvokeFunction(void *block);
void PEWidenReturn(const PEType *type, void *ret);

typedef struct PEHookPlanStep {
    void *block;
    PERegisterFunction invoke;      /* called (block, info, the method's arguments after _cmd) */
    void *object;                   /* an instance hook's receiver, or NULL */
} PEHookPlanStep;

struct PEHookPlan {
    IMP base;
    bool returns, widens;           /* the method returns a value / a narrow integer */
    unsigned beforeCount, count;    /* steps[0, beforeCount) run before the original, the rest after */
    struct PEHookPlan *retiredNext;
    PEHookPlanStep steps[];
};

static bool canRunFromPlan(const struct PEHook *hook) {
    return (hook->position == PEHookPositionBefore || hook->position == PEHookPositionAfter)
        && !hook->automaticRemoval && hook->blockSignature->registerOnly;
}

static struct PEHookPlan *buildPlan(PESlot *slot) {
    if (slot->route != PERouteClosure || !slot->signature->registerOnly || !slot->ownIMP) return NULL;
    if (PESlotGetPatch(slot) || slot->swizzleCount || slot->clearsObjectState) return NULL;
    unsigned count = 0;
    for (struct PEHook *h = slot->hooks; h; h = h->next) {
        if (!canRunFromPlan(h)) return NULL;
        count++;
    }
    struct PEHookPlan *plan = calloc(1, sizeof *plan + sizeof(PEHookPlanStep) * count);
    plan->base = slot->ownIMP;
    PETypeKind returnKind = PETypeGetKind(PESignatureGetReturnType(slot->signature));
    plan->returns = returnKind != PETypeKindVoid;
    plan->widens = PETypeGetSize(PESignatureGetReturnType(slot->signature)) < sizeof(uintptr_t) && plan->returns;
    /* The order PEHooksRun uses: class-level before instance-level within each position. */
    static const struct { int position; bool instanceLevel; } order[] = {
        { PEHookPositionBefore, false }, { PEHookPositionBefore, true },
        { PEHookPositionAfter, false }, { PEHookPositionAfter, true },
    };
    for (unsigned pass = 0; pass < 4; pass++) {
        if (pass == 2) plan->beforeCount = plan->count;
        for (struct PEHook *h = slot->hooks; h; h = h->next) {
            if (h->position != order[pass].position || (h->object != NULL) != order[pass].instanceLevel) continue;
            plan->steps[plan->count++] = (PEHookPlanStep){
                h->block, (PERegisterFunction)PEBlockGetInvokeFunction(h->block), h->object };
        }
    }
    return plan;
}

void PESlotRebuildPlanLocked(PESlot *slot, struct PEHookPlan **retired) {
    struct PEHookPlan *old = __atomic_exchange_n(&slot->plan, buildPlan(slot), __ATOMIC_ACQ_REL);
    if (old) { old->retiredNext = *retired; *retired = old; }
}

void PEHookPlansRetire(struct PEHookPlan *retired) {
    while (retired) {
        struct PEHookPlan *next = retired->retiredNext;
        PEEpochRetire(retired, free);
        retired = next;
    }
}

void PESlotRefreshPlan(PESlot *slot) {
    struct PEHookPlan *retired = NULL;
    pthread_rwlock_wrlock(&PELayerLock);
    PESlotRebuildPlanLocked(slot, &retired);
    pthread_rwlock_unlock(&PELayerLock);
    PEHookPlansRetire(retired);
}

static inline void runSteps(const PEHookPlanStep *step, const PEHookPlanStep *end, id receiver,
                            PEAspectInfo *info, const uintptr_t *values) {
    for (; step < end; step++) {
        if (step->object && step->object != (void *)receiver) continue;
        step->invoke((uintptr_t)step->block, (uintptr_t)info, values[2], values[3], values[4], values[5]);
    }
}

/* The original, with the native-caller record the forwarding route relies on. Arguments are read
   from `values` again: a Before hook may have changed them through the invocation. */
static inline void runBase(const struct PEHookPlan *plan, PESlot *slot, uintptr_t *values, uintptr_t *ret) {
    bool tracked = PENativeCallBegin((id)values[0], (SEL)values[1], slot->cls);
    @try {
        ret[0] = ((PERegisterFunction)plan->base)(values[0], values[1], values[2], values[3], values[4], values[5]);
    } @finally {
        PENativeCallEnd(tracked);
    }
}

bool PEHookPlanRun(PESlot *slot, uintptr_t values[6], uintptr_t ret[2]) {
    PEEpochEnter();
    struct PEHookPlan *plan = __atomic_load_n(&slot->plan, __ATOMIC_ACQUIRE);
    if (!plan) { PEEpochExit(); return false; }
    @try {
        if (plan->count == 0) {
            runBase(plan, slot, values, ret);
        } else {
            void *arguments[6] = { &values[0], &values[1], &values[2], &values[3], &values[4], &values[5] };
            PEFrame frame = { slot->signature, arguments, plan->returns ? ret : NULL };
            id receiver = (id)values[0];
            PEAspectInfo *info = PEHookInfoMake(receiver, slot, &frame);
            @try {
                runSteps(plan->steps, plan->steps + plan->beforeCount, receiver, info, values);
                runBase(plan, slot, values, ret);
                runSteps(plan->steps + plan->beforeCount, plan->steps + plan->count, receiver, info, values);
            } @finally {
                PEHookInfoFinish(info);
            }
        }
        /* An After hook may have set a narrow result with a narrow store. */
        if (plan->widens) PEWidenReturn(PESignatureGetReturnType(slot->signature), ret);
    } @finally {
        PEEpochExit();
    }
    return true;
}
