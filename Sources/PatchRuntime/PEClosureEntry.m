/* The closure route (Stinger's approach): each slot's entry IMP is a libffi closure built from
   the method's type encoding whose user data is the slot, so a call enters the pipeline directly,
   without an NSInvocation, and always knows which class's implementation was hit. */
#include "PESlot.h"
#include "PEHookPlan.h"
#include <pthread.h>

static void closureEntry(ffi_cif *cif, void *ret, void **args, void *userData) {
    (void)cif;
    PESlot *slot = userData;
    if (__atomic_load_n(&slot->plan, __ATOMIC_RELAXED) && PEHookPlanRunFromArguments(slot, ret, args)) return;
    PEFrame frame = { slot->signature, args, ret };
    PESlotInvoke(slot, &frame);
    if (ret) PEWidenReturn(PESignatureGetReturnType(slot->signature), ret);
}

/* Register-only signatures need no generated code: a pool of ordinary functions, each bound to one
   slot, takes six register arguments (extra ones are ignored by both calling conventions) and
   returns one register. Faster than a libffi closure, whose entry classifies every argument on
   every call, and usable where writable code pages are not. */
#define DIRECT_ENTRY_COUNT 1024
static PESlot *directSlots[DIRECT_ENTRY_COUNT];
static unsigned directEntriesUsed;
static pthread_mutex_t directLock = PTHREAD_MUTEX_INITIALIZER;

static uintptr_t directDispatch(unsigned index, uintptr_t a0, uintptr_t a1, uintptr_t a2,
                                uintptr_t a3, uintptr_t a4, uintptr_t a5) {
    PESlot *slot = directSlots[index];
    uintptr_t values[6] = { a0, a1, a2, a3, a4, a5 };
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

/* 1024 entries named by five base-4 digits; each passes its own index, a*256 + ... + e. */
#define PE_ENTRY(a, b, c, d, e) \
    static uintptr_t directEntry##a##b##c##d##e(uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3, uintptr_t a4, uintptr_t a5) \
    { return directDispatch(a * 256 + b * 64 + c * 16 + d * 4 + e, a0, a1, a2, a3, a4, a5); }
#define PE_ENTRY4(a, b, c, d) PE_ENTRY(a, b, c, d, 0) PE_ENTRY(a, b, c, d, 1) PE_ENTRY(a, b, c, d, 2) PE_ENTRY(a, b, c, d, 3)
#define PE_ENTRY16(a, b, c) PE_ENTRY4(a, b, c, 0) PE_ENTRY4(a, b, c, 1) PE_ENTRY4(a, b, c, 2) PE_ENTRY4(a, b, c, 3)
#define PE_ENTRY64(a, b) PE_ENTRY16(a, b, 0) PE_ENTRY16(a, b, 1) PE_ENTRY16(a, b, 2) PE_ENTRY16(a, b, 3)
#define PE_ENTRY256(a) PE_ENTRY64(a, 0) PE_ENTRY64(a, 1) PE_ENTRY64(a, 2) PE_ENTRY64(a, 3)
PE_ENTRY256(0) PE_ENTRY256(1) PE_ENTRY256(2) PE_ENTRY256(3)

#define PE_REF(a, b, c, d, e) directEntry##a##b##c##d##e,
#define PE_REF4(a, b, c, d) PE_REF(a, b, c, d, 0) PE_REF(a, b, c, d, 1) PE_REF(a, b, c, d, 2) PE_REF(a, b, c, d, 3)
#define PE_REF16(a, b, c) PE_REF4(a, b, c, 0) PE_REF4(a, b, c, 1) PE_REF4(a, b, c, 2) PE_REF4(a, b, c, 3)
#define PE_REF64(a, b) PE_REF16(a, b, 0) PE_REF16(a, b, 1) PE_REF16(a, b, 2) PE_REF16(a, b, 3)
#define PE_REF256(a) PE_REF64(a, 0) PE_REF64(a, 1) PE_REF64(a, 2) PE_REF64(a, 3)
typedef uintptr_t (*DirectEntry)(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);
/* Listed in the same order, so directEntries[i] passes index i. */
static const DirectEntry directEntries[DIRECT_ENTRY_COUNT] = { PE_REF256(0) PE_REF256(1) PE_REF256(2) PE_REF256(3) };

IMP PEClosureEntryMake(PESlot *slot, char **error) {
    if (slot->signature->registerOnly) {
        pthread_mutex_lock(&directLock);
        IMP imp = NULL;
        if (directEntriesUsed < DIRECT_ENTRY_COUNT) {
            unsigned index = directEntriesUsed++;
            directSlots[index] = slot;
            imp = (IMP)directEntries[index];
        }
        pthread_mutex_unlock(&directLock);
        if (imp) return imp;
    }
    void *code = NULL;
    ffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    if (!closure || ffi_prep_closure_loc(closure, PESignatureGetCIF(slot->signature), closureEntry, slot, code) != FFI_OK) {
        if (error) *error = strdup("could not allocate a libffi closure");
        return NULL;
    }
    slot->closure = closure;
    return (IMP)code;
}
