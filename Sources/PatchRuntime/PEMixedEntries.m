/* Mixed-register entries: like the register entries (PERegisterEntries.m), a fixed pool of plain
   functions each bound to a handler and its context, but of the mixed-register shape (six integer
   registers, eight floating-point ones: PEMixedRegisters.m) and five to an entry, one per return
   class. Without libffi (iOS) they are what a swizzle hands its block as the original
   implementation of a method with floating-point or struct arguments (-setFrame:, -setAlpha:). */
#include "PEInternal.h"
#include <pthread.h>

/* A swizzle layer holds one while it lives: 256 covers an app's swizzles of such methods. */
#define ENTRY_COUNT 256
typedef struct { PEMixedEntryHandler handler; void *context; const PESignature *signature; } Binding;
static Binding bindings[ENTRY_COUNT];
static unsigned entriesUsed;
static unsigned freeEntries[ENTRY_COUNT], freeCount;
static pthread_mutex_t entryLock = PTHREAD_MUTEX_INITIALIZER;

static inline void dispatch(unsigned index, uintptr_t *g, double *d, PEMixedReturnBuffer *ret) {
    const Binding *binding = &bindings[index];
    void *args[PE_MIXED_GENERAL + PE_MIXED_FLOATING];
    PEMixedArguments(binding->signature, g, d, args);
    binding->handler(binding->context, args, binding->signature->returnType->kind == PETypeKindVoid ? NULL : ret);
}

/* 256 entries named by four base-4 digits; each passes its own index. */
#define PE_ENTRY(a, b, c, e) \
    static inline void run##a##b##c##e(uintptr_t *g, double *d, PEMixedReturnBuffer *ret) { dispatch(a * 64 + b * 16 + c * 4 + e, g, d, ret); } \
    PE_MIXED_ENTRY_FUNCTIONS(static, a##b##c##e, run##a##b##c##e)
#define PE_ENTRY4(a, b, c) PE_ENTRY(a, b, c, 0) PE_ENTRY(a, b, c, 1) PE_ENTRY(a, b, c, 2) PE_ENTRY(a, b, c, 3)
#define PE_ENTRY16(a, b) PE_ENTRY4(a, b, 0) PE_ENTRY4(a, b, 1) PE_ENTRY4(a, b, 2) PE_ENTRY4(a, b, 3)
#define PE_ENTRY64(a) PE_ENTRY16(a, 0) PE_ENTRY16(a, 1) PE_ENTRY16(a, 2) PE_ENTRY16(a, 3)
PE_ENTRY64(0) PE_ENTRY64(1) PE_ENTRY64(2) PE_ENTRY64(3)

#define PE_REF(a, b, c, e) { (void *)generalEntry##a##b##c##e, (void *)floatEntry##a##b##c##e, (void *)doubleEntry##a##b##c##e, \
                             (void *)doublesEntry##a##b##c##e, (void *)wordsEntry##a##b##c##e },
#define PE_REF4(a, b, c) PE_REF(a, b, c, 0) PE_REF(a, b, c, 1) PE_REF(a, b, c, 2) PE_REF(a, b, c, 3)
#define PE_REF16(a, b) PE_REF4(a, b, 0) PE_REF4(a, b, 1) PE_REF4(a, b, 2) PE_REF4(a, b, 3)
#define PE_REF64(a) PE_REF16(a, 0) PE_REF16(a, 1) PE_REF16(a, 2) PE_REF16(a, 3)
/* entries[i][class]: listed in PEMixedReturn's order, and in index order. */
static void *const entries[ENTRY_COUNT][5] = { PE_REF64(0) PE_REF64(1) PE_REF64(2) PE_REF64(3) };
_Static_assert(PEMixedReturnGeneral == 0 && PEMixedReturnFloat == 1 && PEMixedReturnDouble == 2
               && PEMixedReturnDoubles == 3 && PEMixedReturnWords == 4, "entries[i] is listed in PEMixedReturn's order");

void *PEMixedEntryMake(const PESignature *sig, PEMixedEntryHandler handler, void *context, unsigned *index) {
    if (!sig->mixedRegisters) return NULL;
    void *entry = NULL;
    pthread_mutex_lock(&entryLock);
    unsigned i = freeCount ? freeEntries[--freeCount] : entriesUsed < ENTRY_COUNT ? entriesUsed++ : ENTRY_COUNT;
    if (i < ENTRY_COUNT) {
        /* Bound before the function is handed out: whoever publishes it does so with a release. */
        bindings[i] = (Binding){ handler, context, sig };
        *index = i;
        entry = entries[i][sig->mixedReturn];
    }
    pthread_mutex_unlock(&entryLock);
    return entry;
}

void PEMixedEntryRelease(unsigned index) {
    if (index >= ENTRY_COUNT) return;
    pthread_mutex_lock(&entryLock);
    bindings[index] = (Binding){ NULL, NULL, NULL };
    freeEntries[freeCount++] = index;
    pthread_mutex_unlock(&entryLock);
}
