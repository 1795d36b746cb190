/* A slot's plan (PEHookPlan.m) and the code that runs a call from it, inline so the closure
   route's entry functions need no further call to reach the hooks (internal). */
#ifndef PE_HOOK_PLAN_H
#define PE_HOOK_PLAN_H
#include "PEHooksInternal.h"
#include "PEEpochs.h"

/* Calls this thread ran from a plan (PEDispatchPlanCallCountOnThisThread). Per thread, so counting
   costs the hot path no shared cache line. */
extern __thread uint64_t PEHookPlanCallsOnThread;

typedef struct PEHookPlanStep {
    void *block;
    PERegisterFunction invoke;      /* called (block, info, the method's arguments after _cmd) */
    void *object;                   /* an instance hook's receiver, or NULL */
    const struct PEHook *hook;      /* the hook; plans retire before their hooks */
} PEHookPlanStep;

struct PEHookPlan {
    IMP base;                       /* the class's own implementation; NULL: inherited, resolved per call */
    /* For an inherited method: the implementation the superclass answered with when the plan was
       built and the class that defines it, while no slot stands between. A call that gets the same
       answer from the superclass calls it directly; any other answer (a slot installed above since)
       takes the full resolution. */
    Class superclass;
    IMP inheritedIMP;
    Class inheritedOwner;
    bool returns, widens;           /* the method returns a value / a narrow integer */
    bool narrowArguments;           /* some argument is narrower than a register */
    unsigned beforeCount, count;    /* steps[0, beforeCount) run before the original, the rest after */
    struct PEHookPlan *retiredNext;
    PEHookPlanStep steps[];
};

static inline void PEHookPlanRunSteps(const PEHookPlanStep *step, const PEHookPlanStep *end, id receiver,
                                      PEAspectInfo *info, const uintptr_t *values) {
    for (; step < end; step++) {
        if (step->object && !PEHookReachesReceiver(step->hook, receiver)) continue;
        step->invoke((uintptr_t)step->block, (uintptr_t)info, values[2], values[3], values[4], values[5]);
    }
}

/* The original, with the native-caller record the forwarding route relies on. Arguments are read
   from `values` again: a Before hook may have changed them through the invocation. An inherited
   method is resolved now, from the superclass, as the generic pipeline does (PESlotInvokeBase). */
static inline void PEHookPlanRunBase(const struct PEHookPlan *plan, PESlot *slot, uintptr_t *values,
                                     uintptr_t *ret, PEFrame *frame) {
    IMP imp = plan->base;
    Class owner = slot->cls;
    if (!imp) {
        imp = plan->inheritedIMP;
        owner = plan->inheritedOwner;
        if (!imp || class_getMethodImplementation(plan->superclass, (SEL)values[1]) != imp) {
            PEInvokeFromClass(plan->superclass, slot->selectorName, frame);
            return;
        }
    }
    bool tracked = PENativeCallBegin((id)values[0], (SEL)values[1], owner);
    @try {
        ret[0] = ((PERegisterFunction)imp)(values[0], values[1], values[2], values[3], values[4], values[5]);
    } @finally {
        PENativeCallEnd(tracked);
    }
}

/* Runs a call of a register-only slot through its plan: `values` are the six argument registers,
   ret[0] receives the return register. False, with nothing run, when the slot has no plan.
   Inline: it is the body of the closure route's entry functions (PEClosureEntry.m). */
static inline bool PEHookPlanRun(PESlot *slot, uintptr_t values[6], uintptr_t ret[2]) {
    PEEpochEnter();
    struct PEHookPlan *plan = __atomic_load_n(&slot->plan, __ATOMIC_ACQUIRE);
    if (!plan) { PEEpochExit(); return false; }
    PE_STRESS_POINT();
    PEHookPlanCallsOnThread++;
    void *arguments[6] = { &values[0], &values[1], &values[2], &values[3], &values[4], &values[5] };
    PEFrame frame = { slot->signature, arguments, plan->returns ? ret : NULL };
    @try {
        if (plan->count == 0) {
            PEHookPlanRunBase(plan, slot, values, ret, &frame);
        } else {
            id receiver = (id)values[0];
            PEAspectInfo *info = PEHookInfoMake(receiver, slot, &frame);
            @try {
                PEHookPlanRunSteps(plan->steps, plan->steps + plan->beforeCount, receiver, info, values);
                /* Only through the invocation can a hook have stored a narrow argument. */
                if (info->_invocation && plan->narrowArguments) PERegisterValuesExtend(slot->signature, values);
                PEHookPlanRunBase(plan, slot, values, ret, &frame);
                PEHookPlanRunSteps(plan->steps + plan->beforeCount, plan->steps + plan->count, receiver, info, values);
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

/* The plan of a register-only slot that got a libffi closure (the direct entries were all taken),
   run from the closure's argument pointers; false, with nothing run, when the slot has no plan.
   Out of line, in PEHookPlan.m: an inlined copy in PEClosureEntry.m made the compiler stop
   inlining PEHookPlanRun into the direct entries there, about 2.5 ns on every hooked call of the
   fast path (make bench). */
bool PEHookPlanRunFromArguments(PESlot *slot, void *ret, void **args);

#endif
