/* The closure route (Stinger's approach): each slot's entry IMP is a libffi closure built from
   the method's type encoding whose user data is the slot, so a call enters the pipeline directly,
   without an NSInvocation, and always knows which class's implementation was hit. */
#include "PESlot.h"

void PEWidenReturn(const PEType *type, void *ret);

static void closureEntry(ffi_cif *cif, void *ret, void **args, void *userData) {
    (void)cif;
    PESlot *slot = userData;
    PEFrame frame = { slot->signature, args, ret };
    PESlotInvoke(slot, &frame);
    if (ret) PEWidenReturn(PESignatureGetReturnType(slot->signature), ret);
}

IMP PEClosureEntryMake(PESlot *slot, char **error) {
    void *code = NULL;
    ffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    if (!closure || ffi_prep_closure_loc(closure, PESignatureGetCIF(slot->signature), closureEntry, slot, code) != FFI_OK) {
        if (error) *error = strdup("could not allocate a libffi closure");
        return NULL;
    }
    slot->closure = closure;
    return (IMP)code;
}
