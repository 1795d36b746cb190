/* Hooks: a slot's outermost layer. Class-level hooks apply to every instance of the slot's class
   (and subclasses, whose calls reach this slot through the hierarchy); instance hooks apply to
   one receiver and need no dynamic subclass, so -class never lies and KVO is unaffected. */
#include "PEHooksInternal.h"
#include "PEHooks.h"
#include "PEObjects.h"
#include "PEBlocks.h"
#include "PEEpochs.h"
#include "PELiveRecords.h"
#include <Block.h>
#include <string.h>

pthread_rwlock_t PELayerLock = PTHREAD_RWLOCK_INITIALIZER;

static void destroyHook(void *item) {
    struct PEHook *hook = item;
    PEBlockRelease(hook->block);
    free(hook);
    PELiveRecordAdjust(PELiveRecordHook, -1);
}

static uint64_t lastHookIdentifier;

/* Live instance hooks counted by a hash of their object's address. Every -dealloc of a class whose
   objects carry state asks its object's bucket first: a zero bucket means no hook of this object,
   so the dealloc walks no slot and takes no lock. (One count for all objects made every dealloc in
   the process walk every slot twice, under the write lock, as long as one hooked object lived
   anywhere.) A collision only costs the walk. */
enum { PEHookedObjectBuckets = 1024 };
static unsigned hookedObjects[PEHookedObjectBuckets];
static unsigned long deallocScans;

static unsigned *hookedObjectBucket(const void *object) {
    uintptr_t address = (uintptr_t)object;
    return &hookedObjects[((address >> 4) ^ (address >> 14)) % PEHookedObjectBuckets];
}
static bool mayHaveInstanceHooks(const void *object) {
    return __atomic_load_n(hookedObjectBucket(object), __ATOMIC_ACQUIRE) != 0;
}
unsigned long PEHooksDeallocScanCount(void) { return __atomic_load_n(&deallocScans, __ATOMIC_RELAXED); }

#pragma mark - Running hooks

typedef struct {
    uint64_t identifier;
    int position;
    bool automaticRemoval, instanceLevel;
    void *block;
    const PESignature *signature;
} LocalHook;

static void invokeHook(const LocalHook *hook, PEAspectInfo *info, PEFrame *frame) {
    const PESignature *sig = hook->signature;
    unsigned count = PESignatureGetArgumentCount(sig);
    if (count == 2 && PETypeGetKind(PESignatureGetReturnType(sig)) == PETypeKindVoid) {
        /* The usual Aspects block, ^(id<AspectInfo> info): a plain call. */
        ((void (*)(void *, id))PEBlockGetInvokeFunction(hook->block))(hook->block, info);
        return;
    }
    void **args = alloca(sizeof(void *) * count);
    void *block = hook->block;
    id infoObject = info;
    args[0] = &block;
    if (count > 1) args[1] = &infoObject;
    for (unsigned i = 2; i < count; i++) args[i] = frame->arguments[i];
    const PEType *rt = PESignatureGetReturnType(sig);
    void *ret = NULL;
    char scratch[64] __attribute__((aligned(16)));
    if (PETypeGetKind(rt) != PETypeKindVoid) {
        /* An Instead block that returns the method's type provides the method's result. */
        ret = (hook->position == PEHookPositionInstead && frame->returnValue) ? frame->returnValue
            : (PETypeGetSize(rt) <= sizeof scratch ? scratch : alloca(PETypeGetSize(rt)));
    }
    PECallBlock(block, sig, args, ret);
}

static void runPosition(LocalHook *hooks, unsigned n, int position, bool instanceLevel,
                        PEAspectInfo *info, PEFrame *frame) {
    for (unsigned i = 0; i < n; i++)
        if (hooks[i].position == position && hooks[i].instanceLevel == instanceLevel)
            invokeHook(&hooks[i], info, frame);
}

void PEHooksRun(PESlot *slot, PEFrame *frame) {
    id receiver = *(id *)frame->arguments[0];
    /* The hooks of this call, copied out of the lock; on the stack unless there are many. */
    LocalHook onStack[64];
    LocalHook *local = onStack;
    unsigned n = 0, capacity = sizeof onStack / sizeof onStack[0];
    bool hasInstead = false;
    /* No lock: the list is read inside an epoch; unlinked hooks (and their blocks) live until
       every reader that could see them has left. */
    PEEpochEnter();
    for (struct PEHook *h = __atomic_load_n(&slot->hooks, __ATOMIC_ACQUIRE); h;
         h = __atomic_load_n(&h->next, __ATOMIC_ACQUIRE)) {
        if (h->object && !PEHookReachesReceiver(h, receiver)) continue;
        if (n == capacity) {
            LocalHook *bigger = malloc(sizeof(LocalHook) * capacity * 2);
            memcpy(bigger, local, sizeof(LocalHook) * n);
            if (local != onStack) free(local);
            local = bigger;
            capacity *= 2;
        }
        local[n] = (LocalHook){ h->identifier, h->position, h->automaticRemoval, h->object != NULL,
                                h->block, h->blockSignature };
        hasInstead |= h->position == PEHookPositionInstead;
        n++;
    }
    PE_STRESS_POINT();
    if (n == 0) {
        @try { PESlotInvokeCore(slot, frame); } @finally { PEEpochExit(); }
        return;
    }

    PEAspectInfo *info = PEHookInfoMake(receiver, slot, frame);
    @try {
        runPosition(local, n, PEHookPositionBefore, false, info, frame);
        runPosition(local, n, PEHookPositionBefore, true, info, frame);
        if (hasInstead) {
            PEZeroReturn(frame);
            runPosition(local, n, PEHookPositionInstead, false, info, frame);
            runPosition(local, n, PEHookPositionInstead, true, info, frame);
        } else {
            PESlotInvokeCore(slot, frame);
        }
        runPosition(local, n, PEHookPositionAfter, false, info, frame);
        runPosition(local, n, PEHookPositionAfter, true, info, frame);
    } @finally {
        PEHookInfoFinish(info);
        for (unsigned i = 0; i < n; i++)
            if (local[i].automaticRemoval) PEHookRemove(local[i].identifier);
        if (local != onStack) free(local);
        PEEpochExit();
    }
}

#pragma mark - Adding and removing

static bool typesCompatible(const PEType *a, const PEType *b) {
    PETypeKind ka = PETypeGetKind(a), kb = PETypeGetKind(b);
    bool objectA = ka == PETypeKindObject || ka == PETypeKindBlock || ka == PETypeKindClass;
    bool objectB = kb == PETypeKindObject || kb == PETypeKindBlock || kb == PETypeKindClass;
    if (objectA || objectB) return objectA && objectB;
    if (ka != kb) return false;
    if (ka == PETypeKindStruct || ka == PETypeKindUnion) return PETypeGetSize(a) == PETypeGetSize(b);
    return true;
}

static uint64_t fail(int code, NSString *message, int *errorCode, char **error) {
    if (errorCode) *errorCode = code;
    if (error) *error = strdup([message UTF8String]);
    return 0;
}

const char *PEHookBlockEncoding(void *cls, const char *selector, bool instead) {
    Method m = class_getInstanceMethod((Class)cls, sel_registerName(selector));
    const PESignature *sig = m ? PESignatureParse(method_getTypeEncoding(m), NULL) : NULL;
    if (!sig) return NULL;
    NSMutableString *s = [NSMutableString stringWithUTF8String:instead ? PETypeGetEncoding(PESignatureGetReturnType(sig)) : "v"];
    [s appendString:@"@?@"];
    for (unsigned i = 2; i < PESignatureGetArgumentCount(sig); i++)
        [s appendFormat:@"%s", PETypeGetEncoding(PESignatureGetArgument(sig, i))];
    const PESignature *blockSig = PESignatureParse([s UTF8String], NULL);
    return blockSig ? PESignatureGetEncoding(blockSig) : NULL;
}

static uint64_t addHook(Class cls, void *object, const char *selector, int options, void *block,
                        int *errorCode, char **error) {
    int position = options & 0x7;
    static const char *blacklist[] = { "retain", "release", "autorelease", "forwardInvocation:" };
    for (size_t i = 0; i < sizeof blacklist / sizeof blacklist[0]; i++)
        if (strcmp(selector, blacklist[i]) == 0)
            return fail(PEHookErrorSelectorBlacklisted,
                        [NSString stringWithFormat:@"Selector %s is blacklisted.", selector], errorCode, error);
    const char *reserved = PEReservedSelectorReason(selector);
    if (reserved)
        return fail(PEHookErrorSelectorBlacklisted,
                    [NSString stringWithFormat:@"Selector %s is blacklisted: it %s.", selector, reserved], errorCode, error);
    if (!cls || !class_respondsToSelector(cls, sel_registerName(selector)))
        return fail(PEHookErrorDoesNotRespondToSelector,
                    [NSString stringWithFormat:@"Unable to find selector %c[%s %s].", cls && class_isMetaClass(cls) ? '+' : '-',
                     cls ? class_getName(cls) : "nil", selector],
                    errorCode, error);
    if (strcmp(selector, "dealloc") == 0 && position != PEHookPositionBefore)
        return fail(PEHookErrorSelectorDeallocPosition,
                    @"AspectPositionBefore is the only valid position when hooking dealloc.", errorCode, error);
    if (position > PEHookPositionBefore)
        return fail(PEHookErrorIncompatibleBlockSignature, @"Unknown hook position.", errorCode, error);
    const PESignature *blockSig = block && PEIsBlock(block) ? PEBlockGetSignature(block) : NULL;
    if (!blockSig)
        return fail(PEHookErrorMissingBlockSignature,
                    [NSString stringWithFormat:@"The block %p doesn't contain a type signature.", block], errorCode, error);
    char *installError = NULL;
    PESlot *slot = PESlotInstall(cls, selector, NULL, &installError);
    if (!slot) {
        uint64_t r = fail(PEHookErrorDoesNotRespondToSelector,
                          [NSString stringWithFormat:@"%s", installError ?: "cannot hook"], errorCode, error);
        free(installError);
        return r;
    }
    const PESignature *methodSig = slot->signature;
    unsigned blockArgs = PESignatureGetArgumentCount(blockSig), methodArgs = PESignatureGetArgumentCount(methodSig);
    bool compatible = blockArgs <= methodArgs && PESignatureIsCallable(blockSig);
    if (compatible && blockArgs > 1) compatible = PETypeGetKind(PESignatureGetArgument(blockSig, 1)) == PETypeKindObject;
    for (unsigned i = 2; compatible && i < blockArgs; i++)
        compatible = typesCompatible(PESignatureGetArgument(blockSig, i), PESignatureGetArgument(methodSig, i));
    const PEType *blockReturn = PESignatureGetReturnType(blockSig);
    if (compatible && PETypeGetKind(blockReturn) != PETypeKindVoid && position == PEHookPositionInstead)
        compatible = typesCompatible(blockReturn, PESignatureGetReturnType(methodSig));
    if (!compatible) {
        PESlotUninstallIfUnused(slot);      /* a refused hook leaves the method as it was */
        return fail(PEHookErrorIncompatibleBlockSignature,
                    [NSString stringWithFormat:@"Block signature %s doesn't match -[%s %s] (%s).",
                     PESignatureGetEncoding(blockSig), class_getName(cls), selector, PESignatureGetEncoding(methodSig)],
                    errorCode, error);
    }
    if (object && !PESlotEnableObjectStateCleanup(cls, &installError)) {
        uint64_t r = fail(PEHookErrorDoesNotRespondToSelector,
                          [NSString stringWithFormat:@"%s", installError ?: "cannot track the object"], errorCode, error);
        free(installError);
        PESlotUninstallIfUnused(slot);
        return r;
    }
    struct PEHook *hook = calloc(1, sizeof *hook);
    PELiveRecordAdjust(PELiveRecordHook, 1);
    hook->slot = slot;
    hook->position = position;
    hook->automaticRemoval = (options & PEHookOptionAutomaticRemoval) != 0;
    hook->object = object;
    /* Hooked from its own -dealloc: dying from the start. */
    if (object && PEObjectIsDeallocatingOnThisThread(object)) hook->dyingOn = PEEpochThisThread();
    hook->block = PEBlockCopy(block);
    hook->blockSignature = blockSig;
    __block uint64_t identifier = 0;
    PESlotChangeLayers(slot, ^{
        hook->identifier = identifier = ++lastHookIdentifier;
        struct PEHook **tail = &slot->hooks;
        while (*tail) tail = &(*tail)->next;
        __atomic_store_n(tail, hook, __ATOMIC_RELEASE);     /* readers see it fully built */
        __atomic_add_fetch(&slot->hookCount, 1, __ATOMIC_RELEASE);
        if (object) __atomic_add_fetch(hookedObjectBucket(object), 1, __ATOMIC_RELEASE);
    });
    PESlotEnsureInstalled(slot);
    return identifier;
}

uint64_t PEHookAdd(void *clsPtr, void *object, const char *selector, int options, void *block,
                   int *errorCode, char **error) {
    PEEnsureThreadRegistered();
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    uint64_t result = 0;
    @try {
        Class cls = object ? object_getClass((id)object) : (Class)clsPtr;
        result = addHook(cls, object, selector, options, block, errorCode, error);
    } @catch (id exception) {
        result = fail(PEHookErrorDoesNotRespondToSelector, [NSString stringWithUTF8String:PEExceptionMessage(exception)], errorCode, error);
    }
    [pool drain];
    return result;
}

/* Unlinks hooks matching `match` from every slot; returns how many. Caller holds the write lock. */
static unsigned unlinkHooks(bool (^match)(struct PEHook *), struct PEHook **removed,
                            struct PEHookPlan **retiredPlans);

bool PEHookRemove(uint64_t identifier) {
    struct PEHook *removed = NULL;
    struct PEHookPlan *retiredPlans = NULL;
    pthread_rwlock_wrlock(&PELayerLock);
    unsigned n = unlinkHooks(^bool(struct PEHook *h) { return h->identifier == identifier; }, &removed, &retiredPlans);
    pthread_rwlock_unlock(&PELayerLock);
    PE_STRESS_POINT();
    PEHookPlansRetire(retiredPlans);
    while (removed) {
        struct PEHook *next = removed->retiredNext;
        PESlotUninstallIfUnused(removed->slot);
        PEEpochRetire(removed, destroyHook);
        removed = next;
    }
    return n > 0;
}

void PEHooksObjectDeallocating(void *object) {
    if (!mayHaveInstanceHooks(object)) return;
    __atomic_add_fetch(&deallocScans, 1, __ATOMIC_RELAXED);
    PEEpochRecord *thread = PEEpochThisThread();
    /* Marked in place, no list changes: readers only ever see the flag appear. */
    pthread_rwlock_rdlock(&PELayerLock);
    for (PESlot *slot = PESlotEnumerate(NULL); slot; slot = PESlotEnumerate(slot))
        for (struct PEHook *h = slot->hooks; h; h = h->next)
            if (h->object == object) __atomic_store_n(&h->dyingOn, thread, __ATOMIC_RELEASE);
    pthread_rwlock_unlock(&PELayerLock);
}

static void clearObjectHooks(void *object, bool (^match)(struct PEHook *));

void PEHooksClearObject(void *object) {
    clearObjectHooks(object, ^bool(struct PEHook *h) { return h->object == object; });
}

void PEHooksClearDying(void *object) {
    PEEpochRecord *thread = PEEpochThisThread();
    clearObjectHooks(object, ^bool(struct PEHook *h) {
        return h->object == object && __atomic_load_n(&h->dyingOn, __ATOMIC_ACQUIRE) == thread;
    });
}

/* `match` selects only hooks of `object`. */
static void clearObjectHooks(void *object, bool (^match)(struct PEHook *)) {
    if (!mayHaveInstanceHooks(object)) return;
    __atomic_add_fetch(&deallocScans, 1, __ATOMIC_RELAXED);
    struct PEHook *removed = NULL;
    struct PEHookPlan *retiredPlans = NULL;
    pthread_rwlock_wrlock(&PELayerLock);
    unlinkHooks(match, &removed, &retiredPlans);
    pthread_rwlock_unlock(&PELayerLock);
    PEHookPlansRetire(retiredPlans);
    while (removed) {
        struct PEHook *next = removed->retiredNext;
        PEEpochRetire(removed, destroyHook);
        removed = next;
    }
}

/* Unlinks the hooks `match` selects, walking every slot (PESlotEnumerate), so removal by
   identifier needs no index. */
static unsigned unlinkHooks(bool (^match)(struct PEHook *), struct PEHook **removed,
                            struct PEHookPlan **retiredPlans) {
    unsigned n = 0;
    for (PESlot *slot = PESlotEnumerate(NULL); slot; slot = PESlotEnumerate(slot)) {
        if (!slot->hooks) continue;
        unsigned before = n;
        struct PEHook **link = &slot->hooks;
        while (*link) {
            struct PEHook *h = *link;
            if (match(h)) {
                if (h->object) __atomic_sub_fetch(hookedObjectBucket(h->object), 1, __ATOMIC_RELEASE);
                /* Unlinked, not changed: a reader standing on it still walks on to the rest. */
                __atomic_store_n(link, h->next, __ATOMIC_RELEASE);
                h->retiredNext = *removed;
                *removed = h;
                __atomic_sub_fetch(&slot->hookCount, 1, __ATOMIC_RELEASE);
                n++;
            } else {
                link = &h->next;
            }
        }
        if (n != before) PESlotRebuildPlanLocked(slot, retiredPlans);   /* before the hooks retire */
    }
    return n;
}

#pragma mark - Aspects API

NSString *const AspectErrorDomain = @"AspectErrorDomain";

@interface PEHookToken : NSObject <AspectToken> { uint64_t _identifier; }
- (instancetype)initWithIdentifier:(uint64_t)identifier;
@end

@implementation PEHookToken
- (instancetype)initWithIdentifier:(uint64_t)identifier {
    if ((self = [super init])) _identifier = identifier;
    return self;
}
- (BOOL)remove { return PEHookRemove(_identifier); }
@end

static id<AspectToken> hook(Class cls, id object, SEL selector, AspectOptions options, id block, NSError **error) {
    int code = 0; char *message = NULL;
    uint64_t identifier = PEHookAdd(cls, object, sel_getName(selector), (int)options, block, &code, &message);
    if (!identifier) {
        if (error) {
            NSString *text = message ? [NSString stringWithUTF8String:message] : @"hook refused";
            *error = [NSError errorWithDomain:AspectErrorDomain code:code
                                     userInfo:[NSDictionary dictionaryWithObject:text forKey:NSLocalizedDescriptionKey]];
        }
        free(message);
        return nil;
    }
    return [[[PEHookToken alloc] initWithIdentifier:identifier] autorelease];
}

@implementation NSObject (Aspects)
+ (id<AspectToken>)aspect_hookSelector:(SEL)selector withOptions:(AspectOptions)options
                            usingBlock:(id)block error:(NSError **)error {
    return hook(self, nil, selector, options, block, error);
}
- (id<AspectToken>)aspect_hookSelector:(SEL)selector withOptions:(AspectOptions)options
                            usingBlock:(id)block error:(NSError **)error {
    return hook(Nil, self, selector, options, block, error);
}
@end

/* Aspects users hook class methods with [object_getClass(cls) aspect_hookSelector:...]: the
   message goes to a metaclass, which on Apple's runtime inherits NSObject's class methods. On
   GCC's runtime (clang's output) a metaclass's isa is the metaclass of libobjc's own root class
   `Object`, so the category above is never found there (verified: "Class 'Object'(class) does not
   respond to ..."). That class gets the same class method. */
@interface PEAspectsMetaclassSupport : NSObject
@end

@implementation PEAspectsMetaclassSupport
+ (void)load {
    SEL sel = @selector(aspect_hookSelector:withOptions:usingBlock:error:);
    Class nsobjectMeta = object_getClass((id)objc_getClass("NSObject"));
    Class metaclassIsa = object_getClass((id)nsobjectMeta);
    Method method = class_getClassMethod(objc_getClass("NSObject"), sel);
    if (metaclassIsa && method && !class_respondsToSelector(metaclassIsa, sel))
        class_addMethod(metaclassIsa, sel, method_getImplementation(method), method_getTypeEncoding(method));
}
@end
