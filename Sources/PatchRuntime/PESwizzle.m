/* Swizzle layers: below the JS patch, above the original; newest outermost. */
#include "PESlot.h"
#include "PEBlocks.h"
#include "PESwizzle.h"
#include "PEEpochs.h"
#include "PELiveRecords.h"
#include <string.h>

NSString *const PESwizzleErrorDomain = @"PESwizzleErrorDomain";

struct PESwizzleLayer {
    uint64_t identifier;
    PESwizzleInfo *info;        /* passed to the block; lives as long as the layer */
    PESlot *slot;
    void *block;
    const PESignature *blockSignature;
    IMP original;               /* continuation: runs what is below this layer */
    void *closure;              /* the ffi_closure behind `original`, or NULL for a register entry */
    unsigned registerEntry;     /* the register entry behind `original` when not a closure */
    bool mixedEntry;            /* registerEntry indexes the mixed-register entries (PEMixedEntries.m) */
    struct PESwizzleLayer *next;
};

static uint64_t lastSwizzleIdentifier;

static void runLayer(struct PESwizzleLayer *layer, void *block, const PESignature *blockSig, PEFrame *frame) {
    unsigned count = PESignatureGetArgumentCount(blockSig);
    void **args = alloca(sizeof(void *) * count);
    id info = layer->info;
    args[0] = &block;
    args[1] = &info;
    args[2] = frame->arguments[0];                          /* self; the block has no _cmd */
    for (unsigned i = 3; i < count; i++) args[i] = frame->arguments[i - 1];
    PECallBlock(block, blockSig, args, frame->returnValue);
}

/* Runs the layer below `below` (the outermost when NULL). No lock: the list is read inside an
   epoch that lasts the whole layer, block included, so a layer removed meanwhile (and its block,
   info and continuation closure) stays alive until the call has left. */
void PESwizzlesRun(PESlot *slot, PEFrame *frame, struct PESwizzleLayer *below) {
    PEEpochEnter();
    @try {
        struct PESwizzleLayer *layer = __atomic_load_n(&slot->swizzles, __ATOMIC_ACQUIRE);
        if (below) {
            while (layer && layer != below) layer = __atomic_load_n(&layer->next, __ATOMIC_ACQUIRE);
            /* A layer removed mid-call: go to the base. */
            layer = layer ? __atomic_load_n(&layer->next, __ATOMIC_ACQUIRE) : NULL;
        }
        if (layer) runLayer(layer, layer->block, layer->blockSignature, frame);
        else PESlotInvokeBase(slot, frame);
    } @finally {
        PEEpochExit();
    }
}

static void freeContinuation(struct PESwizzleLayer *layer);

/* After every reader that could see the layer has left: its block, info and continuation go. */
static void destroyLayer(void *item) {
    struct PESwizzleLayer *layer = item;
    layer->info->_layer = NULL;
    [layer->info release];
    PEBlockRelease(layer->block);
    freeContinuation(layer);
    free(layer);
    PELiveRecordAdjust(PELiveRecordSwizzleLayer, -1);
}

static void runBelow(struct PESwizzleLayer *layer, void **args, void *ret) {
    PEFrame frame = { layer->slot->signature, args, ret };
    PESwizzlesRun(layer->slot, &frame, layer);
    if (ret) PEWidenReturn(PESignatureGetReturnType(layer->slot->signature), ret);
}

static uintptr_t registerContinuation(void *context, uintptr_t values[6]) {
    struct PESwizzleLayer *layer = context;
    void *args[6] = { &values[0], &values[1], &values[2], &values[3], &values[4], &values[5] };
    uintptr_t ret[2] = { 0, 0 };
    bool returns = PETypeGetKind(PESignatureGetReturnType(layer->slot->signature)) != PETypeKindVoid;
    runBelow(layer, args, returns ? ret : NULL);
    return ret[0];
}

#if PE_HAS_LIBFFI
static void continuation(ffi_cif *cif, void *ret, void **args, void *userData) {
    (void)cif;
    runBelow(userData, args, ret);
}
#endif

static void mixedContinuation(void *context, void **args, void *ret) { runBelow(context, args, ret); }

/* The layer's `original`: a libffi closure where libffi is used; without it (iOS) a register
   entry for methods whose arguments fit in integer registers, a mixed-register entry for those
   whose arguments fit once floating-point registers count apart; none for the others. */
static bool makeContinuation(struct PESwizzleLayer *layer) {
    const PESignature *sig = layer->slot->signature;
#if PE_HAS_LIBFFI
    if (PEUsesLibFFI()) {
        void *code = NULL;
        ffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
        if (!closure || ffi_prep_closure_loc(closure, PESignatureGetCIF(sig), continuation, layer, code) != FFI_OK) {
            if (closure) ffi_closure_free(closure);
            return false;
        }
        layer->closure = closure;
        layer->original = (IMP)code;
        return true;
    }
#endif
    if (sig->registerOnly)
        layer->original = (IMP)PERegisterEntryMake(registerContinuation, layer, 0, &layer->registerEntry);
    else if ((layer->original = (IMP)PEMixedEntryMake(sig, mixedContinuation, layer, &layer->registerEntry)))
        layer->mixedEntry = true;
    return layer->original != NULL;
}

static void freeContinuation(struct PESwizzleLayer *layer) {
#if PE_HAS_LIBFFI
    if (layer->closure) { ffi_closure_free(layer->closure); return; }
#endif
    if (layer->original && layer->mixedEntry) PEMixedEntryRelease(layer->registerEntry);
    else if (layer->original) PERegisterEntryRelease(layer->registerEntry);
}

@implementation PESwizzleInfo
/* Valid while the layer's block runs; a layer reclaimed after removal has none. */
- (IMP)originalImplementation { return _layer ? _layer->original : NULL; }
- (SEL)selector { return _layer ? _layer->slot->sel : NULL; }
@end

/* key (NSValue of the pointer) -> names of the classes swizzled for it, for the Once modes. */
static NSMutableDictionary *swizzledForKey;

@interface PESwizzleLayerToken : NSObject <PESwizzleToken> {
@public
    uint64_t _identifier;
    NSValue *_key;                  /* set for the Once modes: the record to drop on removal */
    NSString *_className;
}
@end

@implementation PESwizzleLayerToken
- (void)dealloc {
    [_key release];
    [_className release];
    [super dealloc];
}
- (BOOL)remove {
    struct PESwizzleLayer *removed = NULL;
    struct PEHookPlan *retiredPlans = NULL;
    pthread_rwlock_wrlock(&PELayerLock);
    for (PESlot *slot = PESlotEnumerate(NULL); slot && !removed; slot = PESlotEnumerate(slot)) {
        for (struct PESwizzleLayer **link = &slot->swizzles; *link; link = &(*link)->next) {
            if ((*link)->identifier == _identifier) {
                removed = *link;
                /* Unlinked, not changed: a reader standing on it still walks on to the rest. */
                __atomic_store_n(link, removed->next, __ATOMIC_RELEASE);
                __atomic_sub_fetch(&slot->swizzleCount, 1, __ATOMIC_RELEASE);
                PESlotRebuildPlanLocked(slot, &retiredPlans);
                break;
            }
        }
    }
    pthread_rwlock_unlock(&PELayerLock);
    PEHookPlansRetire(retiredPlans);
    if (!removed) return NO;
    if (_key) {
        /* The class is no longer swizzled for the key: a Once mode may apply it again. */
        @synchronized ([PESwizzle class]) {
            [[swizzledForKey objectForKey:_key] removeObject:_className];
        }
    }
    PESlotUninstallIfUnused(removed->slot);
    /* Calls in flight may still run the layer's block or its continuation closure. */
    PEEpochRetire(removed, destroyLayer);
    return YES;
}
@end

static NSError *swizzleError(NSString *message) {
    return [NSError errorWithDomain:PESwizzleErrorDomain code:1
                           userInfo:[NSDictionary dictionaryWithObject:message forKey:NSLocalizedDescriptionKey]];
}

static bool kindsCompatible(const PEType *a, const PEType *b) {
    PETypeKind ka = PETypeGetKind(a), kb = PETypeGetKind(b);
    bool oa = ka == PETypeKindObject || ka == PETypeKindBlock || ka == PETypeKindClass;
    bool ob = kb == PETypeKindObject || kb == PETypeKindBlock || kb == PETypeKindClass;
    if (oa || ob) return oa && ob;
    return ka == kb && PETypeGetSize(a) == PETypeGetSize(b);
}

@implementation PESwizzle

+ (id<PESwizzleToken>)swizzleInstanceMethod:(SEL)selector inClass:(Class)cls
                                       mode:(PESwizzleMode)mode key:(const void *)key
                                      error:(NSError **)error usingBlock:(id)block {
    PEEnsureThreadRegistered();
    if (!cls || !selector || !block) {
        if (error) *error = swizzleError(@"swizzle needs a class, a selector and a block");
        return nil;
    }
    const char *name = sel_getName(selector);
    const char *reserved = PEReservedSelectorReason(name);
    if (reserved) {
        if (error) *error = swizzleError([NSString stringWithFormat:@"%s %s", name, reserved]);
        return nil;
    }
    if (!class_respondsToSelector(cls, selector)) {
        if (error) *error = swizzleError([NSString stringWithFormat:@"-[%s %s] does not exist", class_getName(cls), name]);
        return nil;
    }
    NSValue *keyValue = [NSValue valueWithPointer:key];
    if (mode != PESwizzleModeAlways) {
        @synchronized ([PESwizzle class]) {
            if (!swizzledForKey) swizzledForKey = [NSMutableDictionary new];
            NSMutableSet *classes = [swizzledForKey objectForKey:keyValue];
            for (Class k = cls; k; k = class_getSuperclass(k)) {
                if ([classes containsObject:[NSString stringWithUTF8String:class_getName(k)]]) return nil;
                if (mode == PESwizzleModeOncePerClass) break;
            }
        }
    }
    char *installError = NULL;
    PESlot *slot = PESlotInstall(cls, name, NULL, &installError);
    if (!slot) {
        if (error) *error = swizzleError([NSString stringWithUTF8String:installError ?: "cannot swizzle"]);
        free(installError);
        return nil;
    }
    struct PESwizzleLayer *layer = calloc(1, sizeof *layer);
    PELiveRecordAdjust(PELiveRecordSwizzleLayer, 1);
    layer->slot = slot;
    if (!makeContinuation(layer)) {
        free(layer);
        PELiveRecordAdjust(PELiveRecordSwizzleLayer, -1);
        PESlotUninstallIfUnused(slot);
        if (error) *error = swizzleError(slot->signature->registerOnly || PEUsesLibFFI()
            ? @"could not make the continuation to the original implementation"
            : slot->signature->mixedRegisters
            ? [NSString stringWithFormat:@"-[%s %s]: the 256 entries for swizzles of methods with floating-point or struct "
               "arguments are used up, and there is no libffi on this platform for more (iOS)", class_getName(cls), name]
            : [NSString stringWithFormat:@"-[%s %s] takes arguments that don't all fit in registers: handing its "
               "original implementation to a swizzle block needs libffi, which this platform doesn't have (iOS)",
               class_getName(cls), name]);
        return nil;
    }
    const PESignature *blockSig = PEIsBlock(block) ? PEBlockGetSignature(block) : NULL;
    const PESignature *methodSig = slot->signature;
    /* block: (block, info, self, args...) against method: (self, _cmd, args...) */
    bool ok = blockSig && PESignatureIsCallable(blockSig)
        && PESignatureGetArgumentCount(blockSig) == PESignatureGetArgumentCount(methodSig) + 1
        && kindsCompatible(PESignatureGetReturnType(blockSig), PESignatureGetReturnType(methodSig));
    for (unsigned i = 3; ok && i < PESignatureGetArgumentCount(blockSig); i++)
        ok = kindsCompatible(PESignatureGetArgument(blockSig, i), PESignatureGetArgument(methodSig, i - 1));
    if (!ok) {
        freeContinuation(layer);
        free(layer);
        PELiveRecordAdjust(PELiveRecordSwizzleLayer, -1);
        PESlotUninstallIfUnused(slot);
        if (error) *error = swizzleError([NSString stringWithFormat:@"the replacement block %s does not match -[%s %s] %s (it takes the info, self, then the method's arguments)",
            blockSig ? PESignatureGetEncoding(blockSig) : "(no signature)", class_getName(cls), name, PESignatureGetEncoding(methodSig)]);
        return nil;
    }
    layer->block = PEBlockCopy(block);
    layer->blockSignature = blockSig;
    layer->info = [PESwizzleInfo new];
    layer->info->_layer = layer;
    PESlotChangeLayers(slot, ^{
        layer->identifier = ++lastSwizzleIdentifier;
        layer->next = slot->swizzles;
        __atomic_store_n(&slot->swizzles, layer, __ATOMIC_RELEASE);     /* readers see it fully built */
        __atomic_add_fetch(&slot->swizzleCount, 1, __ATOMIC_RELEASE);
    });
    PESlotEnsureInstalled(slot);
    PESwizzleLayerToken *token = [[PESwizzleLayerToken new] autorelease];
    token->_identifier = layer->identifier;
    if (mode != PESwizzleModeAlways) {
        NSString *className = [NSString stringWithUTF8String:class_getName(cls)];
        @synchronized ([PESwizzle class]) {
            NSMutableSet *classes = [swizzledForKey objectForKey:keyValue];
            if (!classes) { classes = [NSMutableSet set]; [swizzledForKey setObject:classes forKey:keyValue]; }
            [classes addObject:className];
        }
        token->_key = [keyValue retain];
        token->_className = [className retain];
    }
    return token;
}

+ (id<PESwizzleToken>)swizzleClassMethod:(SEL)selector inClass:(Class)cls
                                   error:(NSError **)error usingBlock:(id)block {
    return [self swizzleInstanceMethod:selector inClass:object_getClass((id)cls) mode:PESwizzleModeAlways
                                   key:NULL error:error usingBlock:block];
}

@end
