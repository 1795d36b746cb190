#import "PFSupport.h"
#import "PFModulesFixture.h"
#import "PEModules.h"
#import "PEAspects.h"
#import "PESwizzle.h"

#pragma mark - Log

@interface PFModuleLog : NSObject
+ (void)append:(NSString *)entry;
@end

static NSMutableArray *PFModuleLogEntries;
static NSLock *PFModuleLogLock;

@implementation PFModuleLog
+ (void)initialize
{
    if (self == [PFModuleLog class]) {
        PFModuleLogEntries = [NSMutableArray new];
        PFModuleLogLock = [NSLock new];
    }
}
+ (void)append:(NSString *)entry
{
    [PFModuleLogLock lock];
    [PFModuleLogEntries addObject:entry ? entry : @"(nil)"];
    [PFModuleLogLock unlock];
}
+ (void)reset
{
    [PFModuleLogLock lock];
    [PFModuleLogEntries removeAllObjects];
    [PFModuleLogLock unlock];
}
+ (NSString *)text
{
    [PFModuleLogLock lock];
    NSString *text = [PFModuleLogEntries componentsJoinedByString:@" "];
    [PFModuleLogLock unlock];
    return text;
}
@end

static void PFLog(NSString *format, ...)
{
    va_list ap;
    va_start(ap, format);
    NSString *entry = [[NSString alloc] initWithFormat:format arguments:ap];
    va_end(ap);
    [PFModuleLog append:entry];
    [entry release];
}

#ifdef GNUSTEP
extern BOOL GSRegisterCurrentThread(void);
#endif

/* Swift may call these from threads GNUstep has not seen. */
static void PFEnterThread(void)
{
#ifdef GNUSTEP
    static __thread BOOL registered = NO;
    if (!registered) { GSRegisterCurrentThread(); registered = YES; }
#endif
}

#pragma mark - Lifecycle protocol

@protocol PFAppLifecycleBase
- (void)applicationWillTerminate:(id)application;
@end

@protocol PFAppLifecycle <NSObject, PFAppLifecycleBase>
- (BOOL)application:(id)application didFinishLaunchingWithOptions:(NSDictionary *)options;
- (BOOL)application:(id)application openURL:(NSString *)url options:(NSDictionary *)options;
- (NSUInteger)application:(id)application supportedOrientationsForWindow:(NSString *)window;
- (NSString *)applicationRestorationIdentifier:(id)application;
@optional
- (void)applicationDidBecomeActive:(id)application;
@end

/* Only optional methods: GCC's runtime records none of them. */
@protocol PFModulesOptionalOnly
@optional
- (void)applicationDidBecomeActive:(id)application;
@end

/* The lifecycle messages, declared once for the compiler (delegates and modules implement parts). */
@interface NSObject (PFAppLifecycleMessages)
- (BOOL)application:(id)application didFinishLaunchingWithOptions:(NSDictionary *)options;
- (BOOL)application:(id)application openURL:(NSString *)url options:(NSDictionary *)options;
- (NSUInteger)application:(id)application supportedOrientationsForWindow:(NSString *)window;
- (NSString *)applicationRestorationIdentifier:(id)application;
- (void)applicationDidBecomeActive:(id)application;
- (void)applicationWillTerminate:(id)application;
@end

/* GCC's runtime initialises a protocol only when a class adopting it is loaded (until then
   protocol_getName gives NULL and its methods can't be listed): this class adopts them, as an app's
   delegate class adopts UIApplicationDelegate. */
@interface PFAppLifecycleAdopter : NSObject <PFAppLifecycle, PFModulesOptionalOnly>
@end

@implementation PFAppLifecycleAdopter
- (BOOL)application:(id)application didFinishLaunchingWithOptions:(NSDictionary *)options { return NO; }
- (BOOL)application:(id)application openURL:(NSString *)url options:(NSDictionary *)options { return NO; }
- (NSUInteger)application:(id)application supportedOrientationsForWindow:(NSString *)window { return 0; }
- (NSString *)applicationRestorationIdentifier:(id)application { return nil; }
- (void)applicationWillTerminate:(id)application {}
@end

static NSString *PFLongSelectorName(const char *name)
{
    NSString *s = [[NSString stringWithUTF8String:name]
                   stringByTrimmingCharactersInSet:[NSCharacterSet whitespaceCharacterSet]];
    if ([s isEqual:@"launch"]) return @"application:didFinishLaunchingWithOptions:";
    if ([s isEqual:@"open"]) return @"application:openURL:options:";
    if ([s isEqual:@"orientations"]) return @"application:supportedOrientationsForWindow:";
    if ([s isEqual:@"restoration"]) return @"applicationRestorationIdentifier:";
    if ([s isEqual:@"active"]) return @"applicationDidBecomeActive:";
    if ([s isEqual:@"terminate"]) return @"applicationWillTerminate:";
    return s;
}

#pragma mark - Delegates

@interface PFAppDelegate : NSObject
@end

@implementation PFAppDelegate
- (BOOL)application:(id)application didFinishLaunchingWithOptions:(NSDictionary *)options
{
    PFLog(@"delegate:launch");
    return YES;
}
- (BOOL)application:(id)application openURL:(NSString *)url options:(NSDictionary *)options
{
    PFLog(@"delegate:open(%@)", url);
    return [url hasPrefix:@"app:"];
}
- (NSUInteger)application:(id)application supportedOrientationsForWindow:(NSString *)window
{
    PFLog(@"delegate:orientations(%@)", window);
    return [window isEqual:@"main"] ? 2 : 0;
}
- (void)applicationWillTerminate:(id)application
{
    PFLog(@"delegate:terminate");
}
@end

@interface PFAppDelegateOverride : PFAppDelegate
@end

@implementation PFAppDelegateOverride
- (BOOL)application:(id)application openURL:(NSString *)url options:(NSDictionary *)options
{
    PFLog(@"override:open(%@)", url);
    return [super application:application openURL:url options:options];
}
@end

@interface PFBareDelegate : NSObject
@end

@implementation PFBareDelegate
- (void)applicationWillTerminate:(id)application
{
    PFLog(@"bare:terminate");
}
@end

#pragma mark - Modules

/* Counts -init and -dealloc per class. */
static NSMutableDictionary *PFModuleCounts;

static void PFCount(Class cls, NSString *what, int delta)
{
    @synchronized ([PFModuleLog class]) {
        if (!PFModuleCounts) PFModuleCounts = [NSMutableDictionary new];
        NSString *key = [NSString stringWithFormat:@"%s/%@", class_getName(cls), what];
        int value = [[PFModuleCounts objectForKey:key] intValue] + delta;
        [PFModuleCounts setObject:[NSNumber numberWithInt:value] forKey:key];
    }
}

static int PFCountOf(const char *className, NSString *what)
{
    @synchronized ([PFModuleLog class]) {
        NSString *key = [NSString stringWithFormat:@"%s/%@", className, what];
        return [[PFModuleCounts objectForKey:key] intValue];
    }
}

@interface PFCountedModule : NSObject
@end

@implementation PFCountedModule
- (id)init
{
    if ((self = [super init])) {
        PFCount([self class], @"init", 1);
        PFCount([self class], @"live", 1);
    }
    return self;
}
- (void)dealloc
{
    PFCount([self class], @"live", -1);
    [super dealloc];
}
@end

@interface PFLogModule : PFCountedModule
@end

@implementation PFLogModule
- (BOOL)application:(id)application didFinishLaunchingWithOptions:(NSDictionary *)options
{
    PFLog(@"log:launch");
    return NO;
}
- (BOOL)application:(id)application openURL:(NSString *)url options:(NSDictionary *)options
{
    PFLog(@"log:open(%@)", url);
    return NO;
}
- (void)applicationWillTerminate:(id)application
{
    PFLog(@"log:terminate");
}
@end

@interface PFDeepLinkModule : PFCountedModule
@end

@implementation PFDeepLinkModule
- (BOOL)application:(id)application openURL:(NSString *)url options:(NSDictionary *)options
{
    PFLog(@"deeplink:open(%@)", url);
    return [url hasPrefix:@"deep:"];
}
- (NSUInteger)application:(id)application supportedOrientationsForWindow:(NSString *)window
{
    PFLog(@"deeplink:orientations(%@)", window);
    return 8;
}
@end

@interface PFStateModule : PFCountedModule
@end

@implementation PFStateModule
- (NSString *)applicationRestorationIdentifier:(id)application
{
    PFLog(@"state:restoration");
    return @"state";
}
- (void)applicationDidBecomeActive:(id)application
{
    PFLog(@"state:active");
}
@end

@interface PFThrowingModule : PFCountedModule
@end

@implementation PFThrowingModule
- (BOOL)application:(id)application didFinishLaunchingWithOptions:(NSDictionary *)options
{
    [NSException raise:NSInternalInconsistencyException format:@"launch failed"];
    return YES;
}
- (BOOL)application:(id)application openURL:(NSString *)url options:(NSDictionary *)options
{
    PFLog(@"throwing:open(%@)", url);
    return NO;
}
@end

@interface PFFailingInitModule : NSObject
@end

@implementation PFFailingInitModule
- (id)init
{
    [self release];
    [NSException raise:NSInvalidArgumentException format:@"no init"];
    return nil;
}
- (BOOL)application:(id)application didFinishLaunchingWithOptions:(NSDictionary *)options
{
    PFLog(@"failing:launch");
    return YES;
}
@end

@interface PFRecorderModule : PFCountedModule
{
    NSString *_name;
}
- (id)initWithName:(NSString *)name;
- (NSString *)name;
@end

@implementation PFRecorderModule
- (id)initWithName:(NSString *)name
{
    if ((self = [super init])) _name = [name copy];
    return self;
}
- (void)dealloc
{
    [_name release];
    [super dealloc];
}
- (NSString *)name { return _name; }
/* Logged, to show NSObject's methods are not fanned out. */
- (NSString *)description
{
    PFLog(@"%@:description", _name);
    return _name;
}
- (BOOL)application:(id)application didFinishLaunchingWithOptions:(NSDictionary *)options
{
    PFLog(@"%@:launch", _name);
    return NO;
}
- (BOOL)application:(id)application openURL:(NSString *)url options:(NSDictionary *)options
{
    PFLog(@"%@:open(%@)", _name, url);
    return NO;
}
- (NSString *)applicationRestorationIdentifier:(id)application
{
    PFLog(@"%@:restoration", _name);
    return _name;
}
- (void)applicationWillTerminate:(id)application
{
    PFLog(@"%@:terminate", _name);
}
@end

#pragma mark - Host

@interface PFFakeApplication : NSObject
{
    id _delegate;
    BOOL _respondsLaunch, _respondsOpen, _respondsTerminate, _respondsActive;
}
- (void)setDelegate:(id)delegate;
- (id)delegate;
- (void)setIdleTimerDisabled:(BOOL)disabled;
@end

@implementation PFFakeApplication
- (void)setDelegate:(id)delegate
{
    /* UIKit asks once, here, and remembers. */
    _delegate = delegate;
    _respondsLaunch = [delegate respondsToSelector:@selector(application:didFinishLaunchingWithOptions:)];
    _respondsOpen = [delegate respondsToSelector:@selector(application:openURL:options:)];
    _respondsTerminate = [delegate respondsToSelector:@selector(applicationWillTerminate:)];
    _respondsActive = [delegate respondsToSelector:@selector(applicationDidBecomeActive:)];
}
- (id)delegate { return _delegate; }
- (void)setIdleTimerDisabled:(BOOL)disabled {}
- (int)launch
{
    if (!_respondsLaunch) return -1;
    NSDictionary *options = [NSDictionary dictionaryWithObject:@"yes" forKey:@"fixture"];
    return [_delegate application:self didFinishLaunchingWithOptions:options] ? 1 : 0;
}
- (int)openURL:(NSString *)url
{
    if (!_respondsOpen) return -1;
    return [_delegate application:self openURL:url options:[NSDictionary dictionary]] ? 1 : 0;
}
- (int)terminate
{
    if (!_respondsTerminate) return -1;
    [_delegate applicationWillTerminate:self];
    return 0;
}
- (int)becomeActive
{
    if (!_respondsActive) return -1;
    [_delegate applicationDidBecomeActive:self];
    return 0;
}
@end

#pragma mark - C entry points: log, classes, registry

void pf_modules_log_reset(void)
{
    PFEnterThread();
    PF_POOL_BEGIN
        [PFModuleLog reset];
    PF_POOL_END
}

char *pf_modules_log(void)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return PFCopyString([PFModuleLog text]);
    PF_POOL_END
}

int pf_modules_make_class(const char *name, const char *superclassName)
{
    PFEnterThread();
    Class superclass = objc_getClass(superclassName);
    if (!superclass || objc_getClass(name)) return 0;
    Class cls = objc_allocateClassPair(superclass, name, 0);
    if (!cls) return 0;
    objc_registerClassPair(cls);
    return 1;
}

int pf_modules_register_class(const char *className)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return [PEModules registerModuleClass:objc_getClass(className)] ? 1 : 0;
    PF_POOL_END
}

int pf_modules_unregister_class(const char *className)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return [PEModules unregisterModuleClass:objc_getClass(className)] ? 1 : 0;
    PF_POOL_END
}

int pf_modules_register_object(void *object)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return [PEModules registerModuleObject:(id)object] ? 1 : 0;
    PF_POOL_END
}

int pf_modules_unregister_object(void *object)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return [PEModules unregisterModuleObject:(id)object] ? 1 : 0;
    PF_POOL_END
}

void pf_modules_unregister_all(void)
{
    PFEnterThread();
    PF_POOL_BEGIN
        for (id module in [PEModules registeredModules]) {
            if (class_isMetaClass(object_getClass(module))) [PEModules unregisterModuleClass:(Class)module];
            else [PEModules unregisterModuleObject:module];
        }
    PF_POOL_END
}

char *pf_modules_registered(void)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return PFCopyString(PFDescribe([PEModules registeredModules]));
    PF_POOL_END
}

char *pf_modules_registered_names(void)
{
    PFEnterThread();
    PF_POOL_BEGIN
        NSMutableArray *names = [NSMutableArray array];
        for (id module in [PEModules registeredModules]) {
            if (class_isMetaClass(object_getClass(module)))
                [names addObject:[NSString stringWithUTF8String:class_getName((Class)module)]];
            else if ([module isKindOfClass:[PFRecorderModule class]])
                [names addObject:[module name]];
            else
                [names addObject:[NSString stringWithUTF8String:class_getName(object_getClass(module))]];
        }
        return PFCopyString([names componentsJoinedByString:@","]);
    PF_POOL_END
}

char *pf_modules_instance_of(const char *className)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return PFCopyString(PFDescribe([PEModules instanceOfModuleClass:objc_getClass(className)]));
    PF_POOL_END
}

int pf_modules_init_count(const char *className)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return PFCountOf(className, @"init");
    PF_POOL_END
}

int pf_modules_live_count(const char *className)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return PFCountOf(className, @"live");
    PF_POOL_END
}

void *pf_modules_recorder_new(const char *name)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return [[PFRecorderModule alloc] initWithName:[NSString stringWithUTF8String:name]];
    PF_POOL_END
}

#pragma mark - C entry points: attaching

static char *PFErrorString(NSError *error)
{
    if (!error) return strdup("0: failed without an error");
    return PFCopyString([NSString stringWithFormat:@"%ld: %@", (long)[error code], [error localizedDescription]]);
}

static NSArray *PFSelectorList(const char *selectors)
{
    NSMutableArray *names = [NSMutableArray array];
    for (NSString *part in [[NSString stringWithUTF8String:selectors] componentsSeparatedByString:@","])
        [names addObject:PFLongSelectorName([part UTF8String])];
    return names;
}

char *pf_modules_attach_protocol(const char *className)
{
    return pf_modules_attach_named_protocol(className, "PFAppLifecycle");
}

char *pf_modules_attach_named_protocol(const char *className, const char *protocolName)
{
    PFEnterThread();
    PF_POOL_BEGIN
        NSError *error = nil;
        Protocol *protocol = protocolName ? objc_getProtocol(protocolName) : NULL;
        if ([PEModules attachToClass:objc_getClass(className) protocol:protocol error:&error]) return NULL;
        return PFErrorString(error);
    PF_POOL_END
}

char *pf_modules_attach_selectors(const char *className, const char *selectors)
{
    PFEnterThread();
    PF_POOL_BEGIN
        NSError *error = nil;
        NSArray *names = selectors ? PFSelectorList(selectors) : [NSArray array];
        if ([PEModules attachToClass:objc_getClass(className) selectors:names error:&error]) return NULL;
        return PFErrorString(error);
    PF_POOL_END
}

int pf_modules_detach(const char *className)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return [PEModules detachFromClass:objc_getClass(className)] ? 1 : 0;
    PF_POOL_END
}

int pf_modules_is_attached(const char *className, const char *selector)
{
    PFEnterThread();
    PF_POOL_BEGIN
        SEL sel = sel_registerName([PFLongSelectorName(selector) UTF8String]);
        return [PEModules isAttachedToClass:objc_getClass(className) selector:sel] ? 1 : 0;
    PF_POOL_END
}

char *pf_modules_protocol_selectors(const char *protocolName)
{
    PFEnterThread();
    PF_POOL_BEGIN
        NSArray *names = [PEModules selectorNamesOfProtocol:objc_getProtocol(protocolName)];
        return PFCopyString([[names sortedArrayUsingSelector:@selector(compare:)] componentsJoinedByString:@","]);
    PF_POOL_END
}

void *pf_modules_attach_on_setter(const char *hostClassName, const char *setter, const char *selectors, char **errorOut)
{
    PFEnterThread();
    PF_POOL_BEGIN
        NSError *error = nil;
        Class host = objc_getClass(hostClassName);
        SEL sel = sel_registerName(setter);
        id<PEModulesToken> token = selectors
            ? [PEModules attachWhenDelegateIsSetOn:host selector:sel selectors:PFSelectorList(selectors) error:&error]
            : [PEModules attachWhenDelegateIsSetOn:host selector:sel protocol:@protocol(PFAppLifecycle) error:&error];
        if (!token && errorOut) *errorOut = PFErrorString(error);
        return [token retain];
    PF_POOL_END
}

int pf_modules_token_remove(void *token)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return [(id<PEModulesToken>)token remove] ? 1 : 0;
    PF_POOL_END
}

static void (^PFCaptureHandler)(NSString *) = ^(NSString *message) { PFLog(@"error(%@)", message); };

void pf_modules_capture_errors(int on)
{
    PFEnterThread();
    PF_POOL_BEGIN
        [PEModules setErrorHandler:on ? PFCaptureHandler : (void (^)(NSString *))0];
    PF_POOL_END
}

#pragma mark - C entry points: host and delegates

void *pf_app_new(void)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return [PFFakeApplication new];
    PF_POOL_END
}

void pf_app_set_delegate(void *app, void *delegate)
{
    PFEnterThread();
    PF_POOL_BEGIN
        [(PFFakeApplication *)app setDelegate:(id)delegate];
    PF_POOL_END
}

#define PF_GUARDED(expression) \
    PFEnterThread(); \
    PF_POOL_BEGIN \
        @try { return (expression); } @catch (id exception) { return -2; } \
    PF_POOL_END

int pf_app_launch(void *app) { PF_GUARDED([(PFFakeApplication *)app launch]) }
int pf_app_open_url(void *app, const char *url)
{
    PF_GUARDED([(PFFakeApplication *)app openURL:[NSString stringWithUTF8String:url]])
}
int pf_app_terminate(void *app) { PF_GUARDED([(PFFakeApplication *)app terminate]) }
int pf_app_become_active(void *app) { PF_GUARDED([(PFFakeApplication *)app becomeActive]) }

int pf_delegate_launch(void *delegate)
{
    NSDictionary *options = nil;
    PF_GUARDED([(id)delegate application:nil didFinishLaunchingWithOptions:options] ? 1 : 0)
}

int pf_delegate_open_url(void *delegate, const char *url)
{
    PF_GUARDED([(id)delegate application:nil openURL:[NSString stringWithUTF8String:url] options:nil] ? 1 : 0)
}

int pf_delegate_terminate(void *delegate)
{
    PFEnterThread();
    PF_POOL_BEGIN
        @try { [(id)delegate applicationWillTerminate:nil]; return 0; } @catch (id exception) { return -2; }
    PF_POOL_END
}

int pf_delegate_become_active(void *delegate)
{
    PFEnterThread();
    PF_POOL_BEGIN
        @try { [(id)delegate applicationDidBecomeActive:nil]; return 0; } @catch (id exception) { return -2; }
    PF_POOL_END
}

long pf_delegate_orientations(void *delegate, const char *window)
{
    PF_GUARDED((long)[(id)delegate application:nil supportedOrientationsForWindow:[NSString stringWithUTF8String:window]])
}

char *pf_delegate_restoration(void *delegate)
{
    PFEnterThread();
    PF_POOL_BEGIN
        @try {
            return PFCopyString(PFDescribe([(id)delegate applicationRestorationIdentifier:nil]));
        } @catch (NSException *exception) {
            return PFCopyExceptionString(exception);
        }
    PF_POOL_END
}

char *pf_delegate_description_log(void *delegate)
{
    PFEnterThread();
    PF_POOL_BEGIN
        [PFModuleLog reset];
        (void)[(id)delegate description];
        (void)[(id)delegate hash];
        return PFCopyString([PFModuleLog text]);
    PF_POOL_END
}

#pragma mark - C entry points: composition

void *pf_modules_hook(const char *className, const char *selector, int options, const char *label)
{
    PFEnterThread();
    PF_POOL_BEGIN
        /* Blocks don't retain captured objects on this runtime: the label lives for the process. */
        NSString *text = [[NSString alloc] initWithUTF8String:label];
        SEL sel = sel_registerName([PFLongSelectorName(selector) UTF8String]);
        NSError *error = nil;
        id<AspectToken> token = [objc_getClass(className) aspect_hookSelector:sel withOptions:(AspectOptions)options
                                                                    usingBlock:^(id<AspectInfo> info) { PFLog(@"%@", text); }
                                                                         error:&error];
        return [token retain];
    PF_POOL_END
}

int pf_modules_hook_remove(void *token)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return [(id<AspectToken>)token remove] ? 1 : 0;
    PF_POOL_END
}

void *pf_modules_swizzle_open_url(const char *className, const char *label)
{
    PFEnterThread();
    PF_POOL_BEGIN
        NSString *text = [[NSString alloc] initWithUTF8String:label];   /* lives for the process */
        NSError *error = nil;
        id<PESwizzleToken> token = [PESwizzle swizzleInstanceMethod:@selector(application:openURL:options:)
            inClass:objc_getClass(className) mode:PESwizzleModeAlways key:NULL error:&error
            usingBlock:^BOOL(PESwizzleInfo *info, id self, id application, NSString *url, NSDictionary *options) {
                PFLog(@"%@:in", text);
                BOOL (*original)(id, SEL, id, NSString *, NSDictionary *) = (BOOL (*)(id, SEL, id, NSString *, NSDictionary *))[info originalImplementation];
                BOOL result = original(self, [info selector], application, url, options);
                PFLog(@"%@:out", text);
                return result;
            }];
        return [token retain];
    PF_POOL_END
}

int pf_modules_swizzle_remove(void *token)
{
    PFEnterThread();
    PF_POOL_BEGIN
        return [(id<PESwizzleToken>)token remove] ? 1 : 0;
    PF_POOL_END
}

#pragma mark - A module whose -init waits

#include <time.h>
#include <pthread.h>

/* A counting semaphore with a timed wait, on a mutex and a condition variable: POSIX's unnamed
   semaphores (sem_init, sem_timedwait) do not exist on Apple platforms (make apple-check). */
typedef struct { pthread_mutex_t lock; pthread_cond_t posted; unsigned count; } PFSemaphore;
#define PF_SEMAPHORE_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 }

static PFSemaphore PFWaitingInitStarted = PF_SEMAPHORE_INITIALIZER, PFWaitingInitRelease = PF_SEMAPHORE_INITIALIZER,
                   PFWaitingInitAnswered = PF_SEMAPHORE_INITIALIZER;
static int PFWaitingInitMode;               /* 1: waits for a release; 2: asks the registry from another thread */
static volatile int PFWaitingInitOutcome;   /* 0 not run, 1 what it waited for came, -1 it gave up */
static const double PFWaitingInitLimit = 5; /* seconds -init waits at most */

static void PFSemaphorePost(PFSemaphore *semaphore)
{
    pthread_mutex_lock(&semaphore->lock);
    semaphore->count++;
    pthread_cond_signal(&semaphore->posted);
    pthread_mutex_unlock(&semaphore->lock);
}

/* Waits for `semaphore` at most `seconds`. */
static BOOL PFSemaphoreWait(PFSemaphore *semaphore, double seconds)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    long long nanoseconds = deadline.tv_nsec + (long long)((seconds - (long long)seconds) * 1e9);
    deadline.tv_sec += (time_t)seconds + (time_t)(nanoseconds / 1000000000LL);
    deadline.tv_nsec = (long)(nanoseconds % 1000000000LL);
    pthread_mutex_lock(&semaphore->lock);
    while (semaphore->count == 0 && pthread_cond_timedwait(&semaphore->posted, &semaphore->lock, &deadline) == 0) {}   /* until posted, the deadline or an error */
    BOOL taken = semaphore->count > 0;
    if (taken) semaphore->count--;
    pthread_mutex_unlock(&semaphore->lock);
    return taken;
}

static void PFSemaphoreDrain(PFSemaphore *semaphore)
{
    pthread_mutex_lock(&semaphore->lock);
    semaphore->count = 0;
    pthread_mutex_unlock(&semaphore->lock);
}

static void *PFAskRegistry(void *unused)
{
    (void)unused;
    PFEnterThread();
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    (void)[PEModules registeredModules];
    [pool release];
    PFSemaphorePost(&PFWaitingInitAnswered);
    return NULL;
}

@interface PFWaitingInitModule : NSObject
@end

@implementation PFWaitingInitModule
- (id)init
{
    if (!(self = [super init])) return nil;
    PFSemaphorePost(&PFWaitingInitStarted);
    if (PFWaitingInitMode == 1) {
        PFWaitingInitOutcome = PFSemaphoreWait(&PFWaitingInitRelease, PFWaitingInitLimit) ? 1 : -1;
    } else {
        pthread_t thread;
        if (pthread_create(&thread, NULL, PFAskRegistry, NULL) == 0) {
            pthread_detach(thread);
            PFWaitingInitOutcome = PFSemaphoreWait(&PFWaitingInitAnswered, PFWaitingInitLimit) ? 1 : -1;
        } else {
            PFWaitingInitOutcome = -1;
        }
    }
    return self;
}
- (void)applicationWillTerminate:(id)application
{
    PFLog(@"waiting:terminate");
}
@end

void pf_modules_waiting_init_arm(int mode)
{
    PFSemaphoreDrain(&PFWaitingInitStarted);
    PFSemaphoreDrain(&PFWaitingInitRelease);
    PFSemaphoreDrain(&PFWaitingInitAnswered);
    PFWaitingInitMode = mode;
    PFWaitingInitOutcome = 0;
}

int pf_modules_waiting_init_started(double seconds)
{
    return PFSemaphoreWait(&PFWaitingInitStarted, seconds) ? 1 : 0;
}

void pf_modules_waiting_init_release(void)
{
    PFSemaphorePost(&PFWaitingInitRelease);
}

int pf_modules_waiting_init_outcome(void)
{
    return PFWaitingInitOutcome;
}
