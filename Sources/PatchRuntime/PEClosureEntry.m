/* The closure route (Stinger's approach): each slot's entry IMP is bound to the slot, so a call
   enters the pipeline directly, without an NSInvocation, and always knows which class's
   implementation was hit. Register-only signatures get a register entry (PERegisterEntries.m);
   the others a libffi closure built from the method's type encoding. Without libffi (iOS) only
   the first exist: PESlotChooseRoute sends the others to the forwarding route, and so does
   PESlotMakeEntry once the pool runs low (the last entries are kept for swizzle continuations,
   which have no other way). */
#include "PESlot.h"
#include "PEHookPlan.h"

#if PE_HAS_LIBFFI
static void closureEntry(ffi_cif *cif, void *ret, void **args, void *userData) {
    (void)cif;
    PESlot *slot = userData;
    if (__atomic_load_n(&slot->plan, __ATOMIC_RELAXED) && PEHookPlanRunFromArguments(slot, ret, args)) return;
    PEFrame frame = { slot->signature, args, ret };
    PESlotInvoke(slot, &frame);
    if (ret) PEWidenReturn(PESignatureGetReturnType(slot->signature), ret);
}
#endif

static uintptr_t registerEntry(void *context, uintptr_t values[6]) {
    PESlot *slot = context;
    uintptr_t ret[2] = { 0, 0 };
    /* Hooks that need no generic frame, or no layers at all (PEHookPlan.m). */
    if (__atomic_load_n(&slot->plan, __ATOMIC_RELAXED) && PEHookPlanRun(slot, values, ret)) return ret[0];
    void *args[6] = { &values[0], &values[1], &values[2], &values[3], &values[4], &values[5] };
    const PEType *rt = PESignatureGetReturnType(slot->signature);
    bool returns = PETypeGetKind(rt) != PETypeKindVoid;
    PEFrame frame = { slot->signature, args, returns ? ret : NULL };
    PESlotInvoke(slot, &frame);
    if (returns) PEWidenReturn(rt, ret);
    return ret[0];
}

bool PEClosureEntryAvailable(const PESignature *signature) {
    return signature->registerOnly || PEUsesLibFFI();
}

IMP PEClosureEntryMake(PESlot *slot, unsigned reserve, char **error) {
    if (slot->signature->registerOnly) {
        unsigned index;     /* slots are never freed: neither is their entry */
        IMP imp = (IMP)PERegisterEntryMake(registerEntry, slot, reserve, &index);
        if (imp) return imp;
    }
#if PE_HAS_LIBFFI
    if (PEUsesLibFFI()) {
        void *code = NULL;
        ffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
        if (!closure || ffi_prep_closure_loc(closure, PESignatureGetCIF(slot->signature), closureEntry, slot, code) != FFI_OK) {
            if (error) *error = strdup("could not allocate a libffi closure");
            return NULL;
        }
        slot->closure = closure;
        return (IMP)code;
    }
#endif
    if (error) *error = strdup(slot->signature->registerOnly
        ? "the register entries are used up, and there is no libffi on this platform for more"
        : "this method's arguments don't fit in registers, and there is no libffi on this platform to enter it directly");
    return NULL;
}
