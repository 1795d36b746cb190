/* Register entries: ordinary functions that stand in for generated code where a call's arguments
   all fit in general-purpose registers. Each of a fixed pool of functions takes six register
   arguments (extra ones are ignored by both calling conventions), returns one register, and calls
   the handler bound to it with its context. Faster than a libffi closure, whose entry classifies
   every argument on every call, and usable where libffi or writable code pages are not (iOS). */
#include "PEInternal.h"
#include <pthread.h>

/* A test process or a big app's hooks can pass a thousand slots; 4,096 entries are about 200 KB
   of code on arm64. */
#define ENTRY_COUNT 4096
typedef struct { PERegisterEntryHandler handler; void *context; } Binding;
static Binding bindings[ENTRY_COUNT];
static unsigned entriesUsed;
static unsigned freeEntries[ENTRY_COUNT], freeCount;   /* released entries, reused first */
static pthread_mutex_t entryLock = PTHREAD_MUTEX_INITIALIZER;

static inline uintptr_t dispatch(unsigned index, uintptr_t a0, uintptr_t a1, uintptr_t a2,
                                 uintptr_t a3, uintptr_t a4, uintptr_t a5) {
    uintptr_t values[6] = { a0, a1, a2, a3, a4, a5 };
    return bindings[index].handler(bindings[index].context, values);
}

/* 4096 entries named by six base-4 digits; each passes its own index, z*1024 + a*256 + ... + e. */
#define PE_ENTRY(z, a, b, c, d, e) \
    static uintptr_t registerEntry##z##a##b##c##d##e(uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3, uintptr_t a4, uintptr_t a5) \
    { return dispatch(z * 1024 + a * 256 + b * 64 + c * 16 + d * 4 + e, a0, a1, a2, a3, a4, a5); }
#define PE_ENTRY4(z, a, b, c, d) PE_ENTRY(z, a, b, c, d, 0) PE_ENTRY(z, a, b, c, d, 1) PE_ENTRY(z, a, b, c, d, 2) PE_ENTRY(z, a, b, c, d, 3)
#define PE_ENTRY16(z, a, b, c) PE_ENTRY4(z, a, b, c, 0) PE_ENTRY4(z, a, b, c, 1) PE_ENTRY4(z, a, b, c, 2) PE_ENTRY4(z, a, b, c, 3)
#define PE_ENTRY64(z, a, b) PE_ENTRY16(z, a, b, 0) PE_ENTRY16(z, a, b, 1) PE_ENTRY16(z, a, b, 2) PE_ENTRY16(z, a, b, 3)
#define PE_ENTRY256(z, a) PE_ENTRY64(z, a, 0) PE_ENTRY64(z, a, 1) PE_ENTRY64(z, a, 2) PE_ENTRY64(z, a, 3)
#define PE_ENTRY1024(z) PE_ENTRY256(z, 0) PE_ENTRY256(z, 1) PE_ENTRY256(z, 2) PE_ENTRY256(z, 3)
PE_ENTRY1024(0) PE_ENTRY1024(1) PE_ENTRY1024(2) PE_ENTRY1024(3)

#define PE_REF(z, a, b, c, d, e) registerEntry##z##a##b##c##d##e,
#define PE_REF4(z, a, b, c, d) PE_REF(z, a, b, c, d, 0) PE_REF(z, a, b, c, d, 1) PE_REF(z, a, b, c, d, 2) PE_REF(z, a, b, c, d, 3)
#define PE_REF16(z, a, b, c) PE_REF4(z, a, b, c, 0) PE_REF4(z, a, b, c, 1) PE_REF4(z, a, b, c, 2) PE_REF4(z, a, b, c, 3)
#define PE_REF64(z, a, b) PE_REF16(z, a, b, 0) PE_REF16(z, a, b, 1) PE_REF16(z, a, b, 2) PE_REF16(z, a, b, 3)
#define PE_REF256(z, a) PE_REF64(z, a, 0) PE_REF64(z, a, 1) PE_REF64(z, a, 2) PE_REF64(z, a, 3)
#define PE_REF1024(z) PE_REF256(z, 0) PE_REF256(z, 1) PE_REF256(z, 2) PE_REF256(z, 3)
/* Listed in the same order, so entries[i] passes index i. */
static const PERegisterFunction entries[ENTRY_COUNT] = { PE_REF1024(0) PE_REF1024(1) PE_REF1024(2) PE_REF1024(3) };

void *PERegisterEntryMake(PERegisterEntryHandler handler, void *context, unsigned reserve, unsigned *index) {
    void *entry = NULL;
    pthread_mutex_lock(&entryLock);
    unsigned i = ENTRY_COUNT;
    unsigned left = ENTRY_COUNT - entriesUsed + freeCount;
    if (left <= reserve) i = ENTRY_COUNT;
    else if (freeCount) i = freeEntries[--freeCount];
    else i = entriesUsed++;
    if (i < ENTRY_COUNT) {
        /* Bound before the function is handed out: whoever publishes it (a class's method, a
           block) does so with a release, which orders these stores before any call. */
        bindings[i].handler = handler;
        bindings[i].context = context;
        *index = i;
        entry = (void *)entries[i];
    }
    pthread_mutex_unlock(&entryLock);
    return entry;
}

void PERegisterEntryRelease(unsigned index) {
    if (index >= ENTRY_COUNT) return;
    pthread_mutex_lock(&entryLock);
    bindings[index].handler = NULL;
    bindings[index].context = NULL;
    freeEntries[freeCount++] = index;
    pthread_mutex_unlock(&entryLock);
}
