/* The forwarding route (JSPatch's design): the patched selector points at the runtime's
   forwarding IMP, and the engine's -forwardInvocation: (installed once per class, keeping the
   class's previous one for selectors it doesn't own) turns the NSInvocation into a frame. */
#include "PESlot.h"
#include "PEObjects.h"
#include <pthread.h>
#include <string.h>
#include <stdlib.h>

static pthread_mutex_t forwardLock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t forwardedCalls;
uint64_t PEDispatchForwardedCallCount(void) { return __atomic_load_n(&forwardedCalls, __ATOMIC_RELAXED); }

void PEWidenReturn(const PEType *type, void *ret) {
    uintptr_t wide;
    switch (PETypeGetKind(type)) {
        case PETypeKindChar: wide = (uintptr_t)(intptr_t)*(signed char *)ret; break;
        case PETypeKindUChar: wide = *(unsigned char *)ret; break;
        case PETypeKindBool: wide = *(unsigned char *)ret; break;
        case PETypeKindShort: wide = (uintptr_t)(intptr_t)*(short *)ret; break;
        case PETypeKindUShort: wide = *(unsigned short *)ret; break;
        case PETypeKindInt: wide = (uintptr_t)(intptr_t)*(int *)ret; break;
        case PETypeKindUInt: wide = *(unsigned int *)ret; break;
        case PETypeKindLong: wide = (uintptr_t)(intptr_t)*(PE_ENCODED_LONG *)ret; break;
        case PETypeKindULong: wide = (uintptr_t)*(PE_ENCODED_ULONG *)ret; break;
        default: return;
    }
    *(uintptr_t *)ret = wide;
}

#if PE_GNU_RUNTIME
/* GNUstep's NSMethodSignature parses its types on first use of this (undeclared) method. */
@interface NSMethodSignature (PEGNUstepPrivate)
- (void *)methodInfo;
@end

/* GNUstep: our own equivalent of _objc_msgForward, one closure per signature, kept forever. */
typedef struct { ffi_closure *closure; const PESignature *sig; NSMethodSignature *methodSignature; } ForwardingEntry;

static void forwardingClosure(ffi_cif *cif, void *ret, void **args, void *userData) {
    (void)cif;
    ForwardingEntry *entry = userData;
    PEEnsureThreadRegistered();
    id receiver = *(id *)args[0];
    SEL sel = *(SEL *)args[1];
    NSInvocation *inv = [NSInvocation invocationWithMethodSignature:entry->methodSignature];
    [inv setTarget:receiver];
    [inv setSelector:sel];
    unsigned count = PESignatureGetArgumentCount(entry->sig);
    for (unsigned i = 2; i < count; i++) [inv setArgument:args[i] atIndex:(NSInteger)i];
    const PEType *rt = PESignatureGetReturnType(entry->sig);
    bool objectResult = PETypeGetKind(rt) == PETypeKindObject;
    PEGNUInvocationClearReturn(inv, objectResult);
    SEL fwd = @selector(forwardInvocation:);
    void (*forward)(id, SEL, NSInvocation *) = (void (*)(id, SEL, NSInvocation *))PELookupIMP(receiver, fwd);
    forward(receiver, fwd, inv);
    if (PETypeGetKind(rt) != PETypeKindVoid) {
        PEGNUInvocationReturn(inv, ret, objectResult);
        PEWidenReturn(rt, ret);
    }
}

IMP PEGNUForwardingIMP(const char *types) {
    static NSMutableDictionary *cache;
    pthread_mutex_lock(&forwardLock);
    if (!cache) cache = [NSMutableDictionary new];
    NSString *key = [NSString stringWithUTF8String:types];
    NSValue *found = [cache objectForKey:key];
    IMP imp = found ? (IMP)[found pointerValue] : NULL;
    if (!imp) {
        const PESignature *sig = PESignatureParse(types, NULL);
        ffi_cif *cif = sig ? PESignatureGetCIF(sig) : NULL;
        if (cif) {
            ForwardingEntry *entry = calloc(1, sizeof *entry);
            void *code = NULL;
            entry->closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
            entry->sig = sig;
            entry->methodSignature = [[NSMethodSignature signatureWithObjCTypes:PESignatureGetRuntimeEncoding(sig)] retain];
            /* GNUstep fills a signature's details in lazily, without a lock: do it now, under ours,
               since every thread shares this signature. */
            [entry->methodSignature methodInfo];
            if (entry->closure && ffi_prep_closure_loc(entry->closure, cif, forwardingClosure, entry, code) == FFI_OK) {
                imp = (IMP)code;
                [cache setObject:[NSValue valueWithPointer:(const void *)imp] forKey:key];
            }
        }
    }
    pthread_mutex_unlock(&forwardLock);
    return imp;
}
#endif

#pragma mark - The engine's -forwardInvocation:

typedef struct ForwardInstall { Class cls; IMP previous; struct ForwardInstall *next; } ForwardInstall;
static ForwardInstall *forwardInstalls;

static void engineForwardInvocation(id self, SEL _cmd, NSInvocation *inv);

static void ensureForwardInvocation(Class cls) {
    pthread_mutex_lock(&forwardLock);
    for (ForwardInstall *f = forwardInstalls; f; f = f->next)
        if (f->cls == cls) { pthread_mutex_unlock(&forwardLock); return; }
    SEL fwd = @selector(forwardInvocation:);
    Method ownMethod = PEClassOwnMethod(cls, fwd);
    IMP own = ownMethod ? method_getImplementation(ownMethod) : NULL;
    ForwardInstall *f = calloc(1, sizeof *f);
    f->cls = cls; f->previous = own; f->next = forwardInstalls;
    forwardInstalls = f;
    PEReplaceMethod(cls, fwd, (IMP)engineForwardInvocation, "v@:@", NULL);
    pthread_mutex_unlock(&forwardLock);
}

/* The class's own forwarding for selectors the engine does not own. */
static void callPreviousForwardInvocation(id self, SEL _cmd, NSInvocation *inv) {
    for (Class k = object_getClass(self); k; k = class_getSuperclass(k)) {
        IMP previous = NULL; BOOL ours = NO;
        pthread_mutex_lock(&forwardLock);
        for (ForwardInstall *f = forwardInstalls; f; f = f->next)
            if (f->cls == k) { ours = YES; previous = f->previous; break; }
        pthread_mutex_unlock(&forwardLock);
        if (!ours) continue;
        if (!previous) {
            Class sup = class_getSuperclass(k);
            previous = sup ? class_getMethodImplementation(sup, _cmd) : NULL;
        }
        if (previous && previous != (IMP)engineForwardInvocation) {
            ((void (*)(id, SEL, NSInvocation *))previous)(self, _cmd, inv);
            return;
        }
    }
    [self doesNotRecognizeSelector:[inv selector]];
}

static void PEFrameFromInvocationAndRun(PESlot *slot, NSInvocation *inv, void (*run)(PESlot *, PEFrame *));

static void engineForwardInvocation(id self, SEL _cmd, NSInvocation *inv) {
    const char *name = sel_getName([inv selector]);
    PE_STRESS_POINT();
    Class nativeCaller = PENativeCallerClass(self, name);
    Class start = nativeCaller ? class_getSuperclass(nativeCaller) : object_getClass(self);
    /* The nearest installed forwarding slot owns the call. With none installed, the caller fetched
       the forwarding IMP just before another thread uninstalled the slot: that slot still owns it
       (its pipeline runs the restored original). One pass, each slot's state read once, so an
       uninstall and re-install in between can't make both lookups miss. */
    PESlot *slot = NULL, *stale = NULL;
    for (Class k = start; k && !slot; k = class_getSuperclass(k)) {
        PESlot *s = PESlotFind(k, name);
        if (!s || s->route != PERouteForwarding) continue;
        if (__atomic_load_n(&s->installed, __ATOMIC_ACQUIRE)) slot = s;
        else if (!stale && s->ownIMP) stale = s;
    }
    if (!slot) slot = stale;
    if (!slot) { callPreviousForwardInvocation(self, _cmd, inv); return; }
    __atomic_add_fetch(&forwardedCalls, 1, __ATOMIC_RELAXED);
    PEFrameFromInvocationAndRun(slot, inv, PESlotInvoke);
}

/* Runs `run` on a frame made from the invocation's arguments, then sets its return value. */
static void PEFrameFromInvocationAndRun(PESlot *slot, NSInvocation *inv, void (*run)(PESlot *, PEFrame *)) {
    const PESignature *sig = slot->signature;
    unsigned count = PESignatureGetArgumentCount(sig);
    void **args = alloca(sizeof(void *) * count);
    char *storage = alloca(PESignatureGetFrameSize(sig) + 16);
    for (unsigned i = 0; i < count; i++) {
        args[i] = storage + PESignatureGetArgumentOffset(sig, i);
        [inv getArgument:args[i] atIndex:(NSInteger)i];
    }
    const PEType *rt = PESignatureGetReturnType(sig);
    size_t retSize = PETypeGetSize(rt) < 16 ? 16 : PETypeGetSize(rt);
    void *ret = PETypeGetKind(rt) == PETypeKindVoid ? NULL : alloca(retSize);
    if (ret) memset(ret, 0, retSize);
    PEFrame frame = { sig, args, ret };
    run(slot, &frame);
    if (ret) PEPlatformSetInvocationReturn(inv, ret, PETypeGetKind(rt) == PETypeKindObject && PEObjectIsProtocol(*(void **)ret));
}



PERoute PESlotChooseRoute(Class cls, const char *selector, const PESignature *signature, PERoute preferred) {
    /* Forwarding builds an NSInvocation per call: memory management methods and anything on a
       root class (NSInvocation's own ancestors) would forward the forwarding machinery itself.
       Those are register-only, so they have a closure entry with or without libffi. */
    static const char *const closureOnly[] = { "dealloc", "retain", "release", "autorelease", "retainCount",
                                               "methodSignatureForSelector:", "forwardInvocation:", "respondsToSelector:" };
    /* Without libffi (iOS) the closure route has entries for register-only methods only: JSPatch's
       forwarding route takes every other one. */
    if (preferred == PERouteClosure && !PEClosureEntryAvailable(signature)) preferred = PERouteForwarding;
    if (preferred == PERouteForwarding) {
        Class base = class_isMetaClass(cls) ? objc_lookUpClass(class_getName(cls)) : cls;
        if (base && !class_getSuperclass(base)) return PERouteClosure;
        for (size_t i = 0; i < sizeof closureOnly / sizeof closureOnly[0]; i++)
            if (strcmp(selector, closureOnly[i]) == 0) return PERouteClosure;
    }
    return preferred;
}

IMP PESlotMakeEntry(PESlot *slot, char **error) {
    if (!PESignatureIsCallable(slot->signature)) {
        if (error) *error = strdup([[NSString stringWithFormat:@"cannot patch %s %s: its type encoding %s has types a call cannot pass (unions, bit-fields, arrays)",
            class_getName(slot->cls), slot->selectorName, PESignatureGetEncoding(slot->signature)] UTF8String]);
        return NULL;
    }
    if (slot->route == PERouteClosure) {
        /* Without libffi, register entries can run out: a method the forwarding route can take
           leaves the pool's last entries to those it can't (and to swizzle continuations). */
        bool canForward = !PEUsesLibFFI()
            && PESlotChooseRoute(slot->cls, slot->selectorName, slot->signature, PERouteForwarding) == PERouteForwarding;
        char *closureError = NULL;
        IMP imp = PEClosureEntryMake(slot, canForward ? 512 : 0, &closureError);
        if (!imp && canForward) {
            free(closureError);
            slot->route = PERouteForwarding;
            __atomic_add_fetch(&PEForwardingSlotCount, 1, __ATOMIC_RELAXED);
        } else {
            if (error) *error = closureError; else free(closureError);
            return imp;
        }
    }
    ensureForwardInvocation(slot->cls);
    IMP imp = PEForwardingIMP(PESignatureGetRuntimeEncoding(slot->signature));
    if (!imp && error) *error = strdup("the runtime gave no forwarding IMP");
    return imp;
}
