/* The slot record and the hooks between the dispatcher and its entry routes (internal). */
#ifndef PE_SLOT_H
#define PE_SLOT_H
#include "PEInternal.h"
#include "PEDispatch.h"


struct PESlot {
    Class cls;
    SEL sel;                        /* typed with the runtime encoding on GCC's runtime */
    char *selectorName;
    const PESignature *signature;
    IMP ownIMP;                     /* the class's own implementation before the slot, or NULL */
    IMP entryIMP;                   /* what the class's method points at while installed */
    PERoute route;
    uintptr_t patchToken;           /* read and written with __atomic builtins */
    void *closure;                  /* ffi_closure for PERouteClosure */
    bool installed;
    bool clearsProperties;          /* -dealloc of a class whose objects carry JS properties */
    struct PESlot *next;            /* hash chain */
};

bool PESlotHasLayers(const PESlot *slot);
/* The route a slot with this signature takes, given the preferred one. */
PERoute PESlotChooseRoute(const PESignature *sig, PERoute preferred);
/* Builds the IMP the class's method is pointed at (PEForwarding.m / PEClosureEntry.m). */
IMP PESlotMakeEntry(PESlot *slot, char **error);
/* The class whose native implementation of `selector` is running on this thread for `receiver`. */
Class PENativeCallerClass(id receiver, const char *selector);

#endif
