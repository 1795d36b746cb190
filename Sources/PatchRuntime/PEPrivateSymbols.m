/* The private symbol registry (PEPrivateSymbols.h): the lookup, with dlsym in the process's global
   scope (never linked), and the Objective-C runtime's names. */
#include "PEPrivateSymbols.h"
#include "PEInternal.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#if defined(PE_NO_PRIVATE_API)
/* An App Store build: no name is compiled in. */
#define PE_SYMBOL(name, appleOnly) { "", appleOnly }
#else
#define PE_SYMBOL(name, appleOnly) { name, appleOnly }
#endif

static const struct { const char *name; bool appleOnly; } symbols[PEPrivateSymbolCount] = {
    [PEPrivateSymbolObjCIsaClassMask] = PE_SYMBOL("objc_debug_isa_class_mask", true),
    [PEPrivateSymbolObjCTaggedPointerMask] = PE_SYMBOL("objc_debug_taggedpointer_mask", true),
};

bool PEPrivateSymbolsRemoved(void) {
#if defined(PE_NO_PRIVATE_API)
    return true;
#else
    return false;
#endif
}

const char *PEPrivateSymbolName(PEPrivateSymbol symbol) {
    return (unsigned)symbol < PEPrivateSymbolCount ? symbols[symbol].name : "";
}

static bool switchedOff(void) {
    static int state;       /* 0 unknown, 1 looked up, 2 reported absent */
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (!s) {
        const char *setting = getenv("PATCHENGINE_PRIVATE_SYMBOLS");
        s = setting && strcmp(setting, "absent") == 0 ? 2 : 1;
        __atomic_store_n(&state, s, __ATOMIC_RELAXED);
    }
    return s == 2;
}

void *PEPrivateSymbolLookUp(const char *name) {
    if (!name || !name[0] || PEPrivateSymbolsRemoved() || switchedOff()) return NULL;
    void *process = dlopen(NULL, RTLD_NOW);     /* the global symbol scope, on both platforms */
    return process ? dlsym(process, name) : NULL;
}

void *PEPrivateSymbolAddress(PEPrivateSymbol symbol) {
    static void *addresses[PEPrivateSymbolCount];
    static bool looked[PEPrivateSymbolCount];
    if ((unsigned)symbol >= PEPrivateSymbolCount || PEPrivateSymbolsRemoved() || switchedOff()) return NULL;
    if (__atomic_load_n(&looked[symbol], __ATOMIC_ACQUIRE)) return addresses[symbol];
    void *address = NULL;
    if (!(symbols[symbol].appleOnly && PE_GNU_RUNTIME)) address = PEPrivateSymbolLookUp(symbols[symbol].name);
    addresses[symbol] = address;    /* the same answer whichever thread looks first */
    __atomic_store_n(&looked[symbol], true, __ATOMIC_RELEASE);
    return address;
}

#if !PE_GNU_RUNTIME
/* Apple: the masks behind PEIsaClassMask / PEObjectHasIsaWord (PEPlatform.h). Absent, no object
   reports a class word: the tagged-pointer test can't be made safely without the mask. */
static const uintptr_t *isaMask(void) { return PEPrivateSymbolAddress(PEPrivateSymbolObjCIsaClassMask); }
static const uintptr_t *taggedMask(void) { return PEPrivateSymbolAddress(PEPrivateSymbolObjCTaggedPointerMask); }

uintptr_t PEIsaClassMask(void) {
    const uintptr_t *mask = isaMask();
    return mask ? *mask : 0;
}

bool PEObjectHasIsaWord(const void *obj) {
    const uintptr_t *mask = isaMask(), *tagged = taggedMask();
    return obj != NULL && mask && tagged && ((uintptr_t)obj & *tagged) == 0;
}
#endif
