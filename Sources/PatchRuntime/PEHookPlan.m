/* Plans: the fast path of a hooked call. When a slot's only layers are Before and After hooks over
   a register-only implementation (the class's own, or the one it inherits, resolved per call),
   which is what Aspects-style logging and analytics hooks are, a call needs none of the generic
   pipeline: the plan is an immutable list of the hook blocks to call, in running order, with
   their invoke functions looked up once. It is rebuilt under PELayerLock whenever any layer of the
   slot changes (hooks, patch, swizzles), published with one store, read with no lock inside an
   epoch, and retired through the epochs.
   Everything else (Instead hooks, automatic removal, a JS patch, swizzles, other signatures) runs
   through PEHooksRun and the generic pipeline, with identical results. */
#include "PEHookPlan.h"
#include <string.h>
#include "PEHooks.h"
#include "PEBlocks.h"
#include "PELiveRecords.h"

__thread uint64_t PEHookPlanCallsOnThread;
uint64_t PEDispatchPlanCallCountOnThisThread(void) { return PEHookPlanCallsOnThread; }

bool PEHookPlanRunFromArguments(PESlot *slot, void *ret, void **args) {
    const PESignature *sig = slot->signature;
    uintptr_t values[6] = { 0, 0, 0, 0, 0, 0 }, result[2] = { 0, 0 };
    unsigned count = PESignatureGetArgumentCount(sig);
    for (unsigned i = 0; i < count && i < 6; i++) memcpy(&values[i], args[i], PETypeGetSize(PESignatureGetArgument(sig, i)));
    PERegisterValuesExtend(sig, values);
    if (!PEHookPlanRun(slot, values, result)) return false;
    if (ret && PETypeGetKind(PESignatureGetReturnType(sig)) != PETypeKindVoid) memcpy(ret, result, sizeof(uintptr_t));
    return true;
}

static bool canRunFromPlan(const struct PEHook *hook) {
    return (hook->position == PEHookPositionBefore || hook->position == PEHookPositionAfter)
        && !hook->automaticRemoval && hook->blockSignature->registerOnly;
}

/* The native implementation an inherited method resolves to now, and the class that defines it;
   left unset when a slot above answers (every call then resolves in full). The superclass answers
   with that same implementation, which is what each call checks. */
static void resolveInherited(struct PEHookPlan *plan, PESlot *slot) {
    IMP imp;
    Class owner;
    if (PEResolveFromClass(plan->superclass, sel_registerName(slot->selectorName), slot->selectorName, &imp, &owner))
        return;
    plan->inheritedIMP = imp;
    plan->inheritedOwner = owner;
}

static struct PEHookPlan *buildPlan(PESlot *slot) {
    if (slot->route != PERouteClosure || !slot->signature->registerOnly) return NULL;
    if (PESlotGetPatch(slot) || slot->swizzleCount || slot->clearsObjectState) return NULL;
    unsigned count = 0;
    for (struct PEHook *h = slot->hooks; h; h = h->next) {
        if (!canRunFromPlan(h)) return NULL;
        count++;
    }
    struct PEHookPlan *plan = calloc(1, sizeof *plan + sizeof(PEHookPlanStep) * count);
    PELiveRecordAdjust(PELiveRecordHookPlan, 1);
    plan->base = slot->ownIMP;
    plan->superclass = class_getSuperclass(slot->cls);
    if (!plan->base) resolveInherited(plan, slot);
    const PESignature *sig = slot->signature;
    plan->returns = PETypeGetKind(PESignatureGetReturnType(sig)) != PETypeKindVoid;
    plan->widens = plan->returns && PETypeGetSize(PESignatureGetReturnType(sig)) < sizeof(uintptr_t);
    for (unsigned i = 2; i < PESignatureGetArgumentCount(sig); i++)
        if (PETypeGetSize(PESignatureGetArgument(sig, i)) < sizeof(uintptr_t)) plan->narrowArguments = true;
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
                h->block, (PERegisterFunction)PEBlockGetInvokeFunction(h->block), h->object, h };
        }
    }
    return plan;
}

void PESlotRebuildPlanLocked(PESlot *slot, struct PEHookPlan **retired) {
    struct PEHookPlan *old = __atomic_exchange_n(&slot->plan, buildPlan(slot), __ATOMIC_ACQ_REL);
    if (old) { old->retiredNext = *retired; *retired = old; }
    PEDispatchGenerationBumpClass(slot->cls);   /* every layer change rebuilds the plan */
}

static void destroyPlan(void *plan) {
    free(plan);
    PELiveRecordAdjust(PELiveRecordHookPlan, -1);
}

void PEHookPlansRetire(struct PEHookPlan *retired) {
    while (retired) {
        struct PEHookPlan *next = retired->retiredNext;
        PEEpochRetire(retired, destroyPlan);
        retired = next;
    }
}

void PESlotChangeLayers(PESlot *slot, void (^change)(void)) {
    struct PEHookPlan *retired = NULL;
    pthread_rwlock_wrlock(&PELayerLock);
    if (change) change();
    PESlotRebuildPlanLocked(slot, &retired);
    pthread_rwlock_unlock(&PELayerLock);
    PEHookPlansRetire(retired);
}
