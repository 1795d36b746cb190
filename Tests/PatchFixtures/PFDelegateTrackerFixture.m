/* The delegate tracker: the article's naive swizzle helper and tracker, and the same tracker
   written on the toolkit (PESwizzle layers or hooks). */
#import "PFToolkitSupport.h"
#import "PFDelegateTrackerFixture.h"
#import "PFToolkitFixture.h"
#include <pthread.h>

@interface NSObject (PFS4Delegate)
- (void)collectionView:(id)collectionView didSelectItemAtIndexPath:(id)indexPath;
@end

#define PF_S4_FAMILY(F) \
@interface F##CollectionView : NSObject { id _delegate; } @end \
@implementation F##CollectionView \
- (void)setDelegate:(id)delegate { _delegate = delegate; } \
- (id)delegate { return _delegate; } \
- (void)selectItemAtIndexPath:(id)indexPath { [_delegate collectionView:self didSelectItemAtIndexPath:indexPath]; } \
@end \
@interface F##ThirdPartyView : NSObject @end \
@implementation F##ThirdPartyView \
- (void)collectionView:(id)collectionView didSelectItemAtIndexPath:(id)indexPath { \
    PFTkLogFormat(@"ThirdParty(%@)", indexPath); \
} \
@end \
@interface F##MyView : F##ThirdPartyView @end \
@implementation F##MyView @end \
@interface F##MyGrandView : F##MyView @end \
@implementation F##MyGrandView @end \
@interface F##OtherView : F##ThirdPartyView @end \
@implementation F##OtherView @end

PF_S4_FAMILY(PFS4_1) PF_S4_FAMILY(PFS4_2) PF_S4_FAMILY(PFS4_3) PF_S4_FAMILY(PFS4_4)
PF_S4_FAMILY(PFS4_5) PF_S4_FAMILY(PFS4_6) PF_S4_FAMILY(PFS4_7) PF_S4_FAMILY(PFS4_8)
PF_S4_FAMILY(PFS4_9) PF_S4_FAMILY(PFS4_10) PF_S4_FAMILY(PFS4_11) PF_S4_FAMILY(PFS4_12)
PF_S4_FAMILY(PFS4_13) PF_S4_FAMILY(PFS4_14) PF_S4_FAMILY(PFS4_15) PF_S4_FAMILY(PFS4_16)

static SEL didSelectSelector(void) { return sel_registerName("collectionView:didSelectItemAtIndexPath:"); }

/* Nesting of tracking layers on this thread; past the limit a layer reports the cycle. */
static __thread int trackingDepth;

static BOOL enterTracking(void)
{
    if (trackingDepth >= PF_S4_CYCLE_LIMIT) {
        PFTkLogFormat(@"cycle(%d)", trackingDepth);
        return NO;
    }
    trackingDepth++;
    return YES;
}

static void leaveTracking(void) { trackingDepth--; }

#pragma mark - The article's helper and tracker (naive)

#if defined(GNU_RUNTIME)
void __objc_update_dispatch_table_for_class(Class cls);
#endif

/* Apple's class_replaceMethod: replaces the class's OWN method, or adds one. GCC's searches the
   superclasses too and would patch the parent (verified), which is not what the article ran on;
   and Apple flushes every method cache after a change, where GCC only updates the owner's
   dispatch table. Both are reproduced here so the helper behaves as it did on iOS. */
static void appleReplaceMethod(Class cls, SEL sel, IMP imp, const char *types)
{
    unsigned count = 0;
    Method *methods = class_copyMethodList(cls, &count);
    Method own = NULL;
    for (unsigned i = 0; i < count && !own; i++) {
        const char *name = sel_getName(method_getName(methods[i]));
        if (name && strcmp(name, sel_getName(sel)) == 0) own = methods[i];
    }
    free(methods);
    if (own) method_setImplementation(own, imp);
    else class_addMethod(cls, sel, imp, types);
}

static void flushCaches(Class cls)
{
#if defined(GNU_RUNTIME)
    __objc_update_dispatch_table_for_class(cls);
#endif
}

/* HZ_swizzleMethod:newSel:, step for step as in the article. */
static BOOL HZSwizzleMethod(Class cls, SEL originalSel, SEL newSel)
{
    Method originMethod = class_getInstanceMethod(cls, originalSel);
    Method newMethod = class_getInstanceMethod(cls, newSel);
    if (originMethod && newMethod) {
        if (class_addMethod(cls, originalSel, method_getImplementation(newMethod), method_getTypeEncoding(newMethod))) {
            /* When cls only inherits originalSel, originMethod is the superclass's: if the
               superclass was swizzled first, its implementation is already the new one. */
            IMP originIMP = method_getImplementation(originMethod);
            appleReplaceMethod(cls, newSel, originIMP, method_getTypeEncoding(originMethod));
        } else {
            method_exchangeImplementations(originMethod, newMethod);
        }
        flushCaches(cls);
        return YES;
    }
    return NO;
}

static SEL HZNewSelector(SEL sel)
{
    return sel_registerName([[NSString stringWithFormat:@"HZ_%s", sel_getName(sel)] UTF8String]);
}

static pthread_mutex_t naiveLock = PTHREAD_MUTEX_INITIALIZER;
static NSMutableSet *naiveSwizzled;          /* "Class selector" pairs, HZ_methodHasSwizzed */
static NSMutableSet *naiveFamilies;

/* The article's HZ_collectionViewDidSelectRowAtIndexPath: log, then call the "original" through
   the new selector. */
static void HZDidSelect(id self, SEL _cmd, id collectionView, id indexPath)
{
    if (!enterTracking()) return;
    PFTkLog(@"track");
    SEL newSel = HZNewSelector(didSelectSelector());
    [self performSelector:newSel withObject:collectionView withObject:indexPath];
    leaveTracking();
}

/* The article's HZ_setDelegate:. */
static void HZSetDelegate(id self, SEL _cmd, id delegate)
{
    if ([delegate isKindOfClass:[NSObject class]]) {
        SEL sel = didSelectSelector();
        SEL newSel = HZNewSelector(sel);
        Class cls = [delegate class];
        Method originMethod = class_getInstanceMethod(cls, sel);
        NSString *record = [NSString stringWithFormat:@"%s %s", class_getName(cls), sel_getName(sel)];
        pthread_mutex_lock(&naiveLock);
        BOOL swizzled = [naiveSwizzled containsObject:record];
        pthread_mutex_unlock(&naiveLock);
        if (originMethod && !swizzled) {
            class_addMethod(cls, newSel, (IMP)HZDidSelect, method_getTypeEncoding(originMethod));
            HZSwizzleMethod(cls, sel, newSel);
            pthread_mutex_lock(&naiveLock);
            [naiveSwizzled addObject:record];
            pthread_mutex_unlock(&naiveLock);
        }
    }
    SEL original = sel_registerName("HZ_setDelegate:");
    ((void (*)(id, SEL, id))PF_LOOKUP(self, original))(self, original, delegate);
}

void pf_s4_begin_naive_tracker(const char *family)
{
    PFTK_BEGIN
        NSString *name = [NSString stringWithUTF8String:family];
        pthread_mutex_lock(&naiveLock);
        if (!naiveSwizzled) { naiveSwizzled = [NSMutableSet new]; naiveFamilies = [NSMutableSet new]; }
        BOOL started = [naiveFamilies containsObject:name];
        [naiveFamilies addObject:name];
        pthread_mutex_unlock(&naiveLock);
        if (started) return;
        Class collectionView = objc_getClass([[name stringByAppendingString:@"CollectionView"] UTF8String]);
        SEL newSel = sel_registerName("HZ_setDelegate:");
        class_addMethod(collectionView, newSel, (IMP)HZSetDelegate, "v@:@");
        HZSwizzleMethod(collectionView, @selector(setDelegate:), newSel);
    PFTK_END
}

#pragma mark - The tracker on the toolkit

static pthread_mutex_t safeLock = PTHREAD_MUTEX_INITIALIZER;
static NSMutableDictionary *safeTokens;      /* family -> tokens */
static NSMutableDictionary *hookedClasses;   /* family -> names of delegate classes hooked (kind 2) */

static void keepSafeToken(NSString *family, id token)
{
    if (!token) return;
    pthread_mutex_lock(&safeLock);
    NSMutableArray *list = [safeTokens objectForKey:family];
    if (!list) { list = [NSMutableArray array]; [safeTokens setObject:list forKey:family]; }
    [list addObject:token];
    pthread_mutex_unlock(&safeLock);
}

/* Instruments the delegate's class: a swizzle layer, or a hook, that logs and goes on. */
static void trackDelegateClass(NSString *family, int kind, Class cls)
{
    SEL sel = didSelectSelector();
    if (!class_respondsToSelector(cls, sel)) return;
    const char *where = PFTkIntern(class_getName(cls));
    if (kind == 2) {
        NSString *name = [NSString stringWithUTF8String:where];
        pthread_mutex_lock(&safeLock);
        NSMutableSet *done = [hookedClasses objectForKey:family];
        if (!done) { done = [NSMutableSet set]; [hookedClasses setObject:done forKey:family]; }
        BOOL already = [done containsObject:name];
        [done addObject:name];
        pthread_mutex_unlock(&safeLock);
        if (already) return;
        id token = [cls aspect_hookSelector:sel withOptions:AspectPositionBefore usingBlock:(id)^(id<AspectInfo> info) {
            if (!enterTracking()) return;
            PFTkLogFormat(@"track@%s", where);
            leaveTracking();
        } error:NULL];
        keepSafeToken(family, token);
        return;
    }
    const void *key = PFTkIntern([family UTF8String]);
    id token = [PESwizzle swizzleInstanceMethod:sel inClass:cls
                                           mode:kind == 0 ? PESwizzleModeOncePerClass : PESwizzleModeOncePerClassAndSuperclasses
                                            key:key error:NULL
                                     usingBlock:(id)^(PESwizzleInfo *info, id self, id collectionView, id indexPath) {
        if (!enterTracking()) return;
        PFTkLogFormat(@"track@%s", where);
        ((void (*)(id, SEL, id, id))[info originalImplementation])(self, [info selector], collectionView, indexPath);
        leaveTracking();
    }];
    keepSafeToken(family, token);
}

void pf_s4_begin_safe_tracker(const char *family, int kind)
{
    PFTK_BEGIN
        NSString *name = [[NSString alloc] initWithUTF8String:family];    /* captured: kept for the process */
        pthread_mutex_lock(&safeLock);
        if (!safeTokens) { safeTokens = [NSMutableDictionary new]; hookedClasses = [NSMutableDictionary new]; }
        pthread_mutex_unlock(&safeLock);
        Class collectionView = objc_getClass([[name stringByAppendingString:@"CollectionView"] UTF8String]);
        id token = [PESwizzle swizzleInstanceMethod:@selector(setDelegate:) inClass:collectionView
                                               mode:PESwizzleModeAlways key:NULL error:NULL
                                         usingBlock:(id)^(PESwizzleInfo *info, id self, id delegate) {
            if (delegate) trackDelegateClass(name, kind, object_getClass(delegate));
            ((void (*)(id, SEL, id))[info originalImplementation])(self, [info selector], delegate);
        }];
        keepSafeToken(name, token);
    PFTK_END
}

void pf_s4_end_tracker(const char *family)
{
    PFTK_BEGIN
        NSString *name = [NSString stringWithUTF8String:family];
        pthread_mutex_lock(&safeLock);
        NSArray *tokens = [[[safeTokens objectForKey:name] retain] autorelease];
        [safeTokens removeObjectForKey:name];
        [hookedClasses removeObjectForKey:name];
        pthread_mutex_unlock(&safeLock);
        for (id token in tokens) [token remove];
    PFTK_END
}

#pragma mark - Calls

char *pf_s4_set_delegate(void *collectionView, void *delegate)
{
    PFTK_BEGIN
        @try {
            [(id)collectionView setDelegate:(id)delegate];
            return NULL;
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PFTK_END
}

char *pf_s4_select(void *collectionView, const char *indexPath)
{
    PFTK_BEGIN
        @try {
            [(id)collectionView selectItemAtIndexPath:[NSString stringWithUTF8String:indexPath]];
            return NULL;
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PFTK_END
}

char *pf_s4_did_select(void *delegate, const char *indexPath)
{
    PFTK_BEGIN
        @try {
            [(id)delegate collectionView:nil didSelectItemAtIndexPath:[NSString stringWithUTF8String:indexPath]];
            return NULL;
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PFTK_END
}

int pf_s4_make_subclass(const char *superclassName, const char *name)
{
    PFTK_BEGIN
        Class superclass = objc_getClass(superclassName);
        if (!superclass || objc_getClass(name)) return 0;
        Class cls = objc_allocateClassPair(superclass, name, 0);
        if (!cls) return 0;
        objc_registerClassPair(cls);
        return 1;
    PFTK_END
}
