#import "PFSupport.h"
#import "PFToolkitSupport.h"
#import "PFDirectCallsFixture.h"
#import "PESwizzle.h"

@interface PFDirectBase : NSObject
{
    NSString *_name;
}
- (int)value;
- (int)twice:(int)x;
- (NSString *)name;
- (void)setName:(NSString *)name;
- (NSString *)label;
@end

@implementation PFDirectBase
- (void)dealloc
{
    [_name release];
    [super dealloc];
}
- (int)value { return 1; }
- (int)twice:(int)x { return 2 * x; }
- (NSString *)name { return _name ? _name : @""; }
- (void)setName:(NSString *)name
{
    [_name autorelease];
    _name = [name copy];
}
- (NSString *)label { return @"base"; }
@end

@interface PFDirectNative : PFDirectBase
@end
@implementation PFDirectNative
- (int)value { return 100; }
- (NSString *)label { return @"native"; }
@end

@interface PFDirectPlain : PFDirectBase
@end
@implementation PFDirectPlain
@end

static int notifications;
static int liveTracked;

@interface PFDirectObserver : NSObject
@end
@implementation PFDirectObserver
- (void)observeValueForKeyPath:(NSString *)keyPath ofObject:(id)object change:(NSDictionary *)change context:(void *)context
{
    __atomic_add_fetch(&notifications, 1, __ATOMIC_SEQ_CST);
}
@end

@interface PFDirectTracked : NSObject
@end
@implementation PFDirectTracked
- (id)init
{
    if ((self = [super init])) __atomic_add_fetch(&liveTracked, 1, __ATOMIC_SEQ_CST);
    return self;
}
- (void)dealloc
{
    __atomic_sub_fetch(&liveTracked, 1, __ATOMIC_SEQ_CST);
    [super dealloc];
}
@end

@interface PFDirectFixture : NSObject
@end
@implementation PFDirectFixture
+ (void)observe:(id)object
{
    static NSMutableArray *observers;
    if (!observers) observers = [NSMutableArray new];
    PFDirectObserver *observer = [[PFDirectObserver new] autorelease];
    [observers addObject:observer];   /* kept for the process: observed objects never outlive the tests' use */
    [object addObserver:observer forKeyPath:@"name" options:0 context:NULL];
}
+ (void)becomeNative:(id)object { object_setClass(object, [PFDirectNative class]); }
+ (int)valueOf:(id)object { return [(PFDirectBase *)object value]; }
+ (NSString *)labelOf:(id)object { return [(PFDirectBase *)object label]; }
+ (id)autoreleased { return [[PFDirectTracked new] autorelease]; }
+ (int)liveTracked { return __atomic_load_n(&liveTracked, __ATOMIC_SEQ_CST); }
+ (int)makeAutoreleased
{
    [[PFDirectTracked new] autorelease];
    return __atomic_load_n(&liveTracked, __ATOMIC_SEQ_CST);
}
+ (id)callInOwnPool:(id)object selector:(NSString *)selector
{
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    id result = [[object performSelector:NSSelectorFromString(selector)] retain];
    [pool drain];
    return [result autorelease];
}
@end

int pf_direct_notifications(void) { return __atomic_load_n(&notifications, __ATOMIC_SEQ_CST); }
void pf_direct_reset_notifications(void) { __atomic_store_n(&notifications, 0, __ATOMIC_SEQ_CST); }
int pf_direct_live_tracked(void) { return __atomic_load_n(&liveTracked, __ATOMIC_SEQ_CST); }

int pf_direct_native_value_of_new(const char *className)
{
    int value = 0;
    PF_POOL_BEGIN
    id object = [[objc_lookUpClass(className) new] autorelease];
    value = [(PFDirectBase *)object value];
    PF_POOL_END
    return value;
}

int pf_direct_swizzle_value(int offset, char **error)
{
    PFTK_BEGIN
        NSError *failure = nil;
        id token = [PESwizzle swizzleInstanceMethod:@selector(value) inClass:[PFDirectBase class]
                                               mode:PESwizzleModeAlways key:NULL error:&failure
                                         usingBlock:(id)^int(PESwizzleInfo *info, id self) {
            return ((int (*)(id, SEL))[info originalImplementation])(self, [info selector]) + offset;
        }];
        if (token) return PFTkKeep(token);
        if (failure && error) *error = PFCopyString([failure localizedDescription]);
        return 0;
    PFTK_END
}

/* Other code replacing methods, no engine involved. */
static int replacementValue;
static int replacedValue(id self, SEL _cmd) { return replacementValue; }

void *pf_direct_replace_value(const char *className, int value)
{
    replacementValue = value;
    Method method = class_getInstanceMethod(objc_getClass(className), sel_registerName("value"));
    return method ? (void *)method_setImplementation(method, (IMP)replacedValue) : NULL;
}

void pf_direct_set_imp(const char *className, const char *selector, void *imp)
{
    Method method = class_getInstanceMethod(objc_getClass(className), sel_registerName(selector));
    if (method && imp) method_setImplementation(method, (IMP)imp);
}

void pf_direct_exchange(const char *className, const char *first, const char *second)
{
    Class cls = objc_getClass(className);
    Method a = class_getInstanceMethod(cls, sel_registerName(first));
    Method b = class_getInstanceMethod(cls, sel_registerName(second));
    if (a && b) method_exchangeImplementations(a, b);
}

static int addedValue;
static int addedValueIMP(id self, SEL _cmd) { (void)self; (void)_cmd; return addedValue; }

int pf_direct_add_int_method(const char *className, const char *selector, int value)
{
    addedValue = value;
    Class cls = objc_getClass(className);
    return cls && class_addMethod(cls, sel_registerName(selector), (IMP)addedValueIMP, "i@:") ? 1 : 0;
}
