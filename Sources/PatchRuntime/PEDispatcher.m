/* Slots and the call pipeline. A slot owns one (class, selector); whatever route enters it,
   the call runs the patch layer (if any) and then the original, resolved at call time. */
#include "PEInternal.h"
#include "PEDispatch.h"
#include "PESlot.h"
#include "PEObjects.h"
#include "PEEpochs.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>


static PEPatchHandler patchHandler;
/* JS patches this thread entered from native code (PEDispatchPatchedCallCountOnThisThread). */
static __thread uint64_t patchedCallsOnThread;
uint64_t PEDispatchPatchedCallCountOnThisThread(void) { return patchedCallsOnThread; }
static PEPatchTokenReleaser patchTokenReleaser;
unsigned PEForwardingSlotCount;
/* Closures: no NSInvocation per call and no -forwardInvocation: takeover (which is what made
   JSPatch and Aspects fight). The forwarding route stays available per the engine setting. */
static PERoute defaultRoute = PERouteClosure;

void PESetPatchHandler(PEPatchHandler handler) { patchHandler = handler; }
void PESetPatchTokenReleaser(PEPatchTokenReleaser releaser) { patchTokenReleaser = releaser; }

static void releasePatchToken(void *token) {
    if (patchTokenReleaser) patchTokenReleaser((uintptr_t)token);
}

void PEPatchTokenRetire(uintptr_t token) {
    if (token) PEEpochRetire((void *)token, releasePatchToken);
}
void PESetDefaultRoute(PERoute route) { defaultRoute = route; }
PERoute PEGetDefaultRoute(void) { return defaultRoute; }

#pragma mark - Slot table

/* Slots are only ever added (never freed or unlinked) and a slot's `next` is set before it is
   published, so lookups walk the chains with no lock; the lock orders writers only. */
#define SLOT_BUCKETS 4096
static PESlot *slotTable[SLOT_BUCKETS];
static pthread_rwlock_t slotLock = PTHREAD_RWLOCK_INITIALIZER;

static unsigned slotHash(Class cls, const char *name) {
    uintptr_t h = (uintptr_t)cls * 2654435761u;
    while (*name) h = (h ^ (unsigned char)*name++) * 16777619u;
    return (unsigned)(h % SLOT_BUCKETS);
}

static PESlot *findSlot(Class cls, const char *name) {
    for (PESlot *s = __atomic_load_n(&slotTable[slotHash(cls, name)], __ATOMIC_ACQUIRE); s; s = s->next)
        if (s->cls == cls && strcmp(s->selectorName, name) == 0) return s;
    return NULL;
}

PESlot *PESlotFind(void *cls, const char *selector) { return findSlot((Class)cls, selector); }


static char *errorString(NSString *format, ...) {
    va_list ap; va_start(ap, format);
    NSString *s = [[NSString alloc] initWithFormat:format arguments:ap];
    va_end(ap);
    char *r = strdup([s UTF8String]);
    [s release];
    return r;
}

static PESlot *installLocked(Class cls, const char *selector, const char *types, bool *created, char **error);

PESlot *PESlotInstall(void *clsPtr, const char *selector, const char *types, char **error) {
    Class cls = (Class)clsPtr;
    if (!cls || !selector || !*selector) { if (error) *error = strdup("no class or selector"); return NULL; }
    const char *reserved = PEReservedSelectorReason(selector);
    if (reserved) {
        if (error) {
            size_t size = strlen(selector) + strlen(reserved) + 2;
            *error = malloc(size);
            if (*error) snprintf(*error, size, "%s %s", selector, reserved);
        }
        return NULL;
    }
    PEEnsureThreadRegistered();
#if PE_GNU_RUNTIME
    PEGNUNormalizeClasses();    /* classes loaded since the last slot */
#endif
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    PEEnsureClassInitialized(cls);
    bool created = false;
    PESlot *result = installLocked(cls, selector, types, &created, error);
    /* A new slot's first plan; after slotLock, as PELayerLock is taken first elsewhere. */
    if (created) PESlotChangeLayers(result, NULL);
    [pool drain];
    return result;
}

static PESlot *installLocked(Class cls, const char *selector, const char *types, bool *created, char **error) {
    pthread_rwlock_wrlock(&slotLock);
    PESlot *slot = findSlot(cls, selector);
    if (slot) { pthread_rwlock_unlock(&slotLock); return slot; }

    SEL sel = sel_registerName(selector);
    Method existing = class_getInstanceMethod(cls, sel);
    const char *encoding = existing ? method_getTypeEncoding(existing) : types;
    if (!encoding) {
        pthread_rwlock_unlock(&slotLock);
        if (error) *error = errorString(@"%s does not implement %s and no types were given",
                                        class_getName(cls), selector);
        return NULL;
    }
    const char *parseError = NULL;
    const PESignature *sig = PESignatureParse(encoding, &parseError);
    if (!sig) {
        pthread_rwlock_unlock(&slotLock);
        if (error) *error = errorString(@"cannot patch %s %s: type encoding \"%s\": %s",
                                        class_getName(cls), selector, encoding, parseError);
        return NULL;
    }
    slot = calloc(1, sizeof *slot);
    slot->cls = cls;
    slot->sel = PESelectorWithTypes(selector, PESignatureGetEncoding(sig));
    slot->selectorName = strdup(selector);
    slot->signature = sig;
    /* The class's own method, found once: the slot keeps it for every later IMP change. */
    slot->ownMethod = existing ? PEClassOwnMethod(cls, sel) : NULL;
    slot->ownIMP = slot->ownMethod ? method_getImplementation(slot->ownMethod) : NULL;
    slot->route = PESlotChooseRoute(cls, selector, sig, defaultRoute);
    if (slot->route == PERouteForwarding) __atomic_add_fetch(&PEForwardingSlotCount, 1, __ATOMIC_RELAXED);
    IMP entry = PESlotMakeEntry(slot, error);
    if (!entry) {
        pthread_rwlock_unlock(&slotLock);
        free(slot->selectorName); free(slot);
        return NULL;
    }
    slot->entryIMP = entry;
    unsigned h = slotHash(cls, selector);
    slot->next = slotTable[h];
    __atomic_store_n(&slotTable[h], slot, __ATOMIC_RELEASE);     /* fully built before it is seen */
    /* Publish the slot, installed, before the IMP so a concurrent call always finds it: a call
       that reaches the forwarding IMP first must not take a slot for an inherited method (no
       own IMP to fall back on) as one that was just uninstalled. */
    __atomic_store_n(&slot->installed, true, __ATOMIC_RELEASE);
    PEReplaceMethod(cls, sel, entry, PESignatureGetEncoding(sig), &slot->ownMethod);
    *created = true;
    pthread_rwlock_unlock(&slotLock);
    return slot;
}

bool PEDirectPatchRun(void *cls, const char *selector, PEDirectPatchBody body, void *context) {
    SEL sel = sel_registerName(selector);
    IMP imp;
    Class owner;
    PEEpochEnter();
    PESlot *slot = PEResolveFromClass((Class)cls, sel, selector, &imp, &owner);
    uintptr_t token = slot && slot->installed ? __atomic_load_n(&slot->patchToken, __ATOMIC_ACQUIRE) : 0;
    bool direct = token && !slot->clearsObjectState && !__atomic_load_n(&slot->hookCount, __ATOMIC_ACQUIRE)
        && !__atomic_load_n(&slot->swizzleCount, __ATOMIC_ACQUIRE);
    /* The method a send finds must still run the slot's entry: other code may have replaced it. */
    Method method = direct ? class_getInstanceMethod((Class)cls, sel) : NULL;
    const void *impAddress = method && method_getImplementation(method) == slot->entryIMP ? PEMethodIMPAddress(method) : NULL;
    direct = impAddress != NULL;
    if (direct) PEDispatchGenerationWatch(cls, sel, (void *)slot->entryIMP);
    if (direct) body(token, slot->signature, impAddress, (const void *)slot->entryIMP, context);
    PEEpochExit();
    return direct;
}

void PESlotEnsureInstalled(PESlot *slot) {
    if (slot->installed) return;
    pthread_rwlock_wrlock(&slotLock);
    if (!slot->installed) {
        __atomic_store_n(&slot->installed, true, __ATOMIC_RELEASE);    /* before the IMP, as above */
        PEReplaceMethod(slot->cls, slot->sel, slot->entryIMP, PESignatureGetEncoding(slot->signature), &slot->ownMethod);
        PEDispatchGenerationBumpClass(slot->cls);
    }
    pthread_rwlock_unlock(&slotLock);
}

void PESlotSetPatch(PESlot *slot, uintptr_t token) {
    /* The token and the plan change together: no call sees a plan that skips a set patch. */
    PESlotChangeLayers(slot, ^{ __atomic_store_n(&slot->patchToken, token, __ATOMIC_RELEASE); });
    if (token) PESlotEnsureInstalled(slot);
}

PESlot *PESlotEnumerate(PESlot *after) {
    pthread_rwlock_rdlock(&slotLock);
    PESlot *found = NULL;
    unsigned bucket = 0;
    if (after) {
        if (after->next) { found = after->next; goto out; }
        bucket = slotHash(after->cls, after->selectorName) + 1;
    }
    for (; bucket < SLOT_BUCKETS; bucket++)
        if (slotTable[bucket]) { found = slotTable[bucket]; break; }
out:
    pthread_rwlock_unlock(&slotLock);
    return found;
}

static PEObjectDeallocHandler deallocHandler;
void PESetObjectDeallocHandler(PEObjectDeallocHandler handler) { deallocHandler = handler; }
static PEObjectDeallocHandler deallocEndHandler;
void PESetObjectDeallocEndHandler(PEObjectDeallocHandler handler) { deallocEndHandler = handler; }

/* By address, after the core: only when the dying object could not be taken aside first. */
void PEObjectStateClear(void *obj) {
    PEPropertyClear(obj);
    PEHooksClearObject(obj);
    if (deallocHandler) deallocHandler(obj);
}
uintptr_t PESlotGetPatch(const PESlot *slot) { return __atomic_load_n(&slot->patchToken, __ATOMIC_ACQUIRE); }
const PESignature *PESlotGetSignature(const PESlot *slot) { return slot->signature; }
PERoute PESlotGetRoute(const PESlot *slot) { return slot->route; }

void PESlotUninstallIfUnused(PESlot *slot) {
    if (PESlotHasLayers(slot) || !slot->ownIMP) return;
    PE_STRESS_POINT();
    pthread_rwlock_wrlock(&slotLock);
    if (slot->installed && !PESlotHasLayers(slot)) {
        PEReplaceMethod(slot->cls, slot->sel, slot->ownIMP, PESignatureGetEncoding(slot->signature), &slot->ownMethod);
        slot->installed = false;
        PEDispatchGenerationBumpClass(slot->cls);
    }
    pthread_rwlock_unlock(&slotLock);
}

bool PESlotHasLayers(const PESlot *slot) {
    return PESlotGetPatch(slot) != 0 || slot->clearsObjectState
        || __atomic_load_n(&slot->hookCount, __ATOMIC_ACQUIRE) || __atomic_load_n(&slot->swizzleCount, __ATOMIC_ACQUIRE);
}

bool PESlotEnableObjectStateCleanup(Class cls, char **error) {
    PESlot *slot = PESlotInstall(cls, "dealloc", "v@:", error);
    if (!slot) return false;
    PESlotChangeLayers(slot, ^{ slot->clearsObjectState = true; });
    return true;
}

#pragma mark - Invocation

__thread PENativeCall PENativeCalls[PE_NATIVE_DEPTH];
__thread unsigned PENativeCallDepth;

Class PENativeCallerClass(id receiver, const char *selector) {
    for (unsigned i = PENativeCallDepth; i > 0; i--) {
        if (PENativeCalls[i - 1].receiver == receiver && strcmp(sel_getName(PENativeCalls[i - 1].sel), selector) == 0)
            return PENativeCalls[i - 1].owner;
    }
    return Nil;
}

void PEZeroReturn(PEFrame *frame) {
    const PEType *rt = PESignatureGetReturnType(frame->signature);
    if (frame->returnValue && PETypeGetKind(rt) != PETypeKindVoid)
        memset(frame->returnValue, 0, PETypeGetSize(rt) < sizeof(uintptr_t) ? sizeof(uintptr_t) : PETypeGetSize(rt));
}

static void raiseNotCallable(const PESignature *sig) {
    [NSException raise:NSInvalidArgumentException format:@"signature %s cannot be called (unions, bit-fields or arrays)",
        PESignatureGetEncoding(sig)];
}

static void callNative(IMP imp, Class owner, PEFrame *frame) {
    if (!PESignatureIsCallable(frame->signature)) raiseNotCallable(frame->signature);
    bool tracked = PENativeCallBegin(*(id *)frame->arguments[0], *(SEL *)frame->arguments[1], owner);
    @try {
        /* Registers or libffi; without libffi, NSInvocation (PEInvocationCall.m). */
        if (!PECallFunction((void *)imp, frame->signature, frame->arguments, frame->returnValue))
            PEInvocationCallIMP(imp, owner, frame);
    } @finally {
        PENativeCallEnd(tracked);
    }
}

PESlot *PEResolveFromClass(Class start, SEL sel, const char *selector, IMP *imp, Class *owner) {
    *imp = NULL;
    *owner = Nil;
    for (Class k = start; k; k = class_getSuperclass(k)) {
        PESlot *slot = PESlotFind(k, selector);
        if (slot && slot->installed) return slot;
        Class sup = class_getSuperclass(k);
        if (!class_respondsToSelector(k, sel)) return NULL;
        IMP found = class_getMethodImplementation(k, sel);
        /* A slot being installed again on another thread: the class may already point at its entry
           while `installed` is still false. Calling the entry natively would lose the slot (on
           the forwarding route, -forwardInvocation: would take this class for the caller of a
           super call and look above it). */
        if (slot && found == slot->entryIMP) return slot;
        if (!sup || !class_respondsToSelector(sup, sel) || found != class_getMethodImplementation(sup, sel)) {
            *imp = found;
            *owner = k;
            return NULL;
        }
    }
    return NULL;
}

void PEInvokeFromClass(void *startPtr, const char *selector, PEFrame *frame) {
    SEL sel = *(SEL *)frame->arguments[1];
    if (!sel) sel = sel_registerName(selector);
    IMP imp;
    Class owner;
    PESlot *slot = PEResolveFromClass((Class)startPtr, sel, selector, &imp, &owner);
    if (slot) PESlotInvoke(slot, frame);
    else if (imp) callNative(imp, owner, frame);
    else PEZeroReturn(frame);
}

/* The class's own implementation, or the superclass's current one resolved now. */
void PESlotInvokeBase(PESlot *slot, PEFrame *frame) {
    if (slot->ownIMP) callNative(slot->ownIMP, slot->cls, frame);
    else PEInvokeFromClass(class_getSuperclass(slot->cls), slot->selectorName, frame);
}

/* Below the patch: swizzle layers (newest outermost), then the base. */
void PESlotInvokeOriginal(PESlot *slot, PEFrame *frame) {
    if (__atomic_load_n(&slot->swizzleCount, __ATOMIC_ACQUIRE)) PESwizzlesRun(slot, frame, NULL);
    else PESlotInvokeBase(slot, frame);
}

/* The patch, or what is below it. The token is read and used inside an epoch: a revert meanwhile
   retires it, and its record is released only after this call has left. */
void PESlotInvokeCore(PESlot *slot, PEFrame *frame) {
    PEEpochEnter();
    @try {
        uintptr_t token = PESlotGetPatch(slot);
        PE_STRESS_POINT();
        if (token && patchHandler) { patchedCallsOnThread++; patchHandler(slot, frame, token); }
        else PESlotInvokeOriginal(slot, frame);
    } @finally {
        PEEpochExit();
    }
}

/* The objects whose -dealloc this thread is running through a slot that clears their state,
   innermost last (a -dealloc that releases other objects nests, as deep as a linked list is
   long), each with the JS properties moved aside for the rest of its -dealloc. */
typedef struct { void *object; void *properties; } PEDeallocating;
#define PE_DEALLOC_INLINE 32
static __thread PEDeallocating inlineDeallocating[PE_DEALLOC_INLINE];
/* inlineDeallocating, or while deeper than it a heap copy (freed when the depth is back to 0,
   so a thread that exits leaves nothing behind). */
static __thread PEDeallocating *deallocating;
static __thread unsigned deallocatingDepth, deallocatingCapacity;

static PEDeallocating *deallocatingEntry(void *object) {
    for (unsigned i = deallocatingDepth; i > 0; i--)
        if (deallocating[i - 1].object == object) return &deallocating[i - 1];
    return NULL;
}

bool PEObjectIsDeallocatingOnThisThread(void *object) {
    return deallocatingDepth && deallocatingEntry(object);
}

void **PEDeallocatingPropertiesOnThisThread(void *object) {
    PEDeallocating *entry = deallocatingDepth ? deallocatingEntry(object) : NULL;
    return entry ? &entry->properties : NULL;
}

/* Pushes `object`; false when the stack cannot grow (no memory): the caller then clears by
   address after the core, as before this stack existed. */
static bool pushDeallocating(void *object) {
    if (!deallocating) { deallocating = inlineDeallocating; deallocatingCapacity = PE_DEALLOC_INLINE; }
    if (deallocatingDepth == deallocatingCapacity) {
        unsigned capacity = deallocatingCapacity * 2;
        PEDeallocating *grown = deallocating == inlineDeallocating ? malloc(capacity * sizeof *grown)
                                                                   : realloc(deallocating, capacity * sizeof *grown);
        if (!grown) return false;
        if (deallocating == inlineDeallocating) memcpy(grown, inlineDeallocating, sizeof inlineDeallocating);
        deallocating = grown;
        deallocatingCapacity = capacity;
    }
    deallocating[deallocatingDepth++] = (PEDeallocating){ object, NULL };
    return true;
}

/* Pops back to `depth`; gives the properties taken aside for the popped entry to the caller. */
static void *popDeallocating(unsigned depth) {
    void *properties = deallocating[depth].properties;
    deallocatingDepth = depth;
    if (depth == 0 && deallocating != inlineDeallocating) {
        free(deallocating);
        deallocating = inlineDeallocating;
        deallocatingCapacity = PE_DEALLOC_INLINE;
    }
    return properties;
}

static void runLayers(PESlot *slot, PEFrame *frame) {
    if (__atomic_load_n(&slot->hookCount, __ATOMIC_ACQUIRE)) PEHooksRun(slot, frame);
    else PESlotInvokeCore(slot, frame);
}

/* -dealloc of a class whose objects carry per-object state. The root -dealloc frees the memory
   inside the call, and another thread's allocation can get the address before this call
   returns: everything keyed by the address is taken aside first (hooks marked as this thread's,
   JS properties moved onto this thread's stack, weak references zeroed — as ARC's read nil once
   deallocation starts), so nothing of the dying object reaches the newcomer and nothing of the
   newcomer's is cleared after the core. */
static void runDeallocClearingState(PESlot *slot, PEFrame *frame) {
    void *object = *(void **)frame->arguments[0];
    /* A subclass's slot took it aside already; this is its [super dealloc]. */
    if (PEObjectIsDeallocatingOnThisThread(object)) { runLayers(slot, frame); return; }
    if (!pushDeallocating(object)) {
        runLayers(slot, frame);
        PEObjectStateClear(object);
        return;
    }
    unsigned depth = deallocatingDepth - 1;
    @try {
        PEHooksObjectDeallocating(object);
        deallocating[depth].properties = PEPropertyDetach(object);
        if (deallocHandler) deallocHandler(object);
        PE_STRESS_POINT();
        runLayers(slot, frame);
        PE_STRESS_POINT();
        PEHooksClearDying(object);
    } @finally {
        if (deallocEndHandler) deallocEndHandler(object);
        PEPropertiesRelease(popDeallocating(depth));    /* may run other -deallocs: after the pop */
    }
}

/* The whole pipeline: hooks around the patch around swizzles around the original. */
void PESlotInvoke(PESlot *slot, PEFrame *frame) {
    if (slot->clearsObjectState) runDeallocClearingState(slot, frame);
    else runLayers(slot, frame);
}

bool PESlotInvokeOriginalCatching(PESlot *slot, PEFrame *frame, char **error) {
    PEEnsureThreadRegistered();
    bool ok = false;
    PE_TRY(error, { PESlotInvokeOriginal(slot, frame); ok = true; });
    return ok;
}

PESlot *PESlotFindInHierarchy(void *cls, const char *selector) {
    for (Class k = (Class)cls; k; k = class_getSuperclass(k)) {
        PESlot *slot = PESlotFind(k, selector);
        if (slot) return slot;
    }
    return NULL;
}

char *PEExceptionMessage(id exception) {
    NSString *text;
    if ([exception isKindOfClass:[NSException class]])
        text = [NSString stringWithFormat:@"%@: %@", [exception name], [exception reason]];
    else
        text = [NSString stringWithFormat:@"Objective-C exception: %@", exception];
    return strdup([text UTF8String] ?: "Objective-C exception");
}

bool PEMessageSend(PEFrame *frame, char **error) {
    PEEnsureThreadRegistered();
    id receiver = *(id *)frame->arguments[0];
    if (!receiver) { PEZeroReturn(frame); return true; }
    SEL sel = *(SEL *)frame->arguments[1];
    bool ok = false;
    PE_TRY(error, {
        if (!PESignatureIsCallable(frame->signature)) raiseNotCallable(frame->signature);
#if PE_HAS_LIBFFI
        if (PEUsesLibFFI()) {
            IMP imp = PELookupIMP(receiver, sel);
            ffi_call(PESignatureGetCIF(frame->signature), (void (*)(void))imp, frame->returnValue, frame->arguments);
            ok = true;
        }
#endif
        /* Without libffi: registers when they carry the whole call, else an NSInvocation. */
        if (!ok) {
            if (!PECallFunction((void *)PELookupIMP(receiver, sel), frame->signature, frame->arguments, frame->returnValue))
                PEInvocationSend(frame);
            ok = true;
        }
    });
    return ok;
}

bool PEMessageSendRegisters(uintptr_t values[6], uintptr_t *result, char **error) {
    PEEnsureThreadRegistered();
    id receiver = (id)values[0];
    if (!receiver) { *result = 0; return true; }
    bool ok = false;
    PE_TRY(error, {
        IMP imp = PELookupIMP(receiver, (SEL)values[1]);
        *result = ((PERegisterFunction)imp)(values[0], values[1], values[2], values[3], values[4], values[5]);
        ok = true;
    });
    return ok;
}

bool PESignatureIsRegisterOnly(const PESignature *sig) { return sig->registerOnly; }

#include <dlfcn.h>
void *PESymbolLookup(const char *name) { return dlsym(RTLD_DEFAULT, name); }

bool PEInvokeFunction(void *function, PEFrame *frame, char **error) {
    PEEnsureThreadRegistered();
    if (!PESignatureIsCallable(frame->signature)) {
        if (error) *error = strdup("this signature cannot be called (unions, bit-fields or arrays)");
        return false;
    }
    bool ok = false, called = false;
    PE_TRY(error, { called = PECallFunction(function, frame->signature, frame->arguments, frame->returnValue); ok = true; });
    if (ok && !called) {
        /* NSInvocation calls methods only: a C function needs libffi unless registers carry it. */
        if (error) *error = strdup("calling a C function whose arguments don't all fit in registers (more than 6 "
                                   "integer or 8 floating-point ones, a struct other than a few doubles) needs libffi, "
                                   "which this platform doesn't have (iOS)");
        return false;
    }
    return ok;
}

bool PEMessageSendVariadic(PEFrame *frame, unsigned fixedArgumentCount, char **error) {
    PEEnsureThreadRegistered();
    id receiver = *(id *)frame->arguments[0];
    if (!receiver) { PEZeroReturn(frame); return true; }
    const PESignature *sig = frame->signature;
#if PE_HAS_LIBFFI
    if (!PEUsesLibFFI())
#endif
    {
        /* NSInvocation has no variadic calls: without libffi, registers and stack words when the
           arguments are of those kinds (PEMixedRegisters.m). */
        bool ok = false, called = false;
        PE_TRY(error, {
            IMP imp = PELookupIMP(receiver, *(SEL *)frame->arguments[1]);
            called = PEMixedCallWithStack((void *)imp, sig, fixedArgumentCount, frame->arguments, frame->returnValue);
            ok = true;
        });
        if (ok && !called) {
            if (error) *error = strdup("calling a variadic method with more than 16 arguments past the registers, or with "
                                       "arguments other than words and doubles, needs libffi, which this platform doesn't have (iOS)");
            return false;
        }
        return ok;
    }
#if PE_HAS_LIBFFI
    unsigned total = PESignatureGetArgumentCount(sig);
    ffi_type **types = alloca(sizeof(ffi_type *) * total);
    for (unsigned i = 0; i < total; i++) types[i] = PESignatureGetArgument(sig, i)->ffi;
    ffi_cif cif;
    if (!PESignatureIsCallable(sig) ||
        ffi_prep_cif_var(&cif, FFI_DEFAULT_ABI, fixedArgumentCount, total, PESignatureGetReturnType(sig)->ffi, types) != FFI_OK) {
        if (error) *error = strdup("cannot prepare a variadic call");
        return false;
    }
    bool ok = false;
    PE_TRY(error, {
        IMP imp = PELookupIMP(receiver, *(SEL *)frame->arguments[1]);
        ffi_call(&cif, (void (*)(void))imp, frame->returnValue, frame->arguments);
        ok = true;
    });
    return ok;
#endif
}

bool PESuperSend(void *startClass, PEFrame *frame, char **error) {
    PEEnsureThreadRegistered();
    bool ok = false;
    SEL sel = *(SEL *)frame->arguments[1];
    PE_TRY(error, { PEInvokeFromClass(startClass, sel_getName(sel), frame); ok = true; });
    return ok;
}
