#import "PFSupport.h"
#import "PFForwardingFixture.h"

static BOOL PFIsDynamic(SEL sel) { return strncmp(sel_getName(sel), "dyn", 3) == 0; }

static void PFAnswer(NSInvocation *invocation, NSString *prefix)
{
    NSString *answer = [NSString stringWithFormat:@"%@:%s", prefix, sel_getName([invocation selector])];
    [invocation setReturnValue:&answer];
}

@interface PFForwarder : NSObject
{
    NSMutableArray *_log;
}
- (NSString *)greet;
- (NSString *)forwardLog;
@end

@implementation PFForwarder
- (id)init
{
    if ((self = [super init])) _log = [NSMutableArray new];
    return self;
}
- (void)dealloc
{
    [_log release];
    [super dealloc];
}
- (NSString *)greet { return @"hello"; }
- (NSString *)forwardLog { return [_log componentsJoinedByString:@","]; }
- (NSMethodSignature *)methodSignatureForSelector:(SEL)sel
{
    if (PFIsDynamic(sel)) return [NSMethodSignature signatureWithObjCTypes:"@@:"];
    return [super methodSignatureForSelector:sel];
}
- (void)forwardInvocation:(NSInvocation *)invocation
{
    if (PFIsDynamic([invocation selector])) {
        [_log addObject:[NSString stringWithUTF8String:sel_getName([invocation selector])]];
        PFAnswer(invocation, @"forwarded");
        return;
    }
    [super forwardInvocation:invocation];
}
@end

@interface PFForwardParent : NSObject
- (NSString *)greet;
@end

/* The class's own -forwardInvocation:, taken before anything can replace it. */
static IMP PFParentOriginalForward = NULL;

@implementation PFForwardParent
+ (void)load
{
    PFParentOriginalForward = class_getMethodImplementation(self, @selector(forwardInvocation:));
}
- (NSString *)greet { return @"parent-hello"; }
- (NSMethodSignature *)methodSignatureForSelector:(SEL)sel
{
    if (PFIsDynamic(sel)) return [NSMethodSignature signatureWithObjCTypes:"@@:"];
    return [super methodSignatureForSelector:sel];
}
- (void)forwardInvocation:(NSInvocation *)invocation
{
    if (PFIsDynamic([invocation selector])) {
        PFAnswer(invocation, @"parent-original");
        return;
    }
    [super forwardInvocation:invocation];
}
@end

@interface PFForwardChild : PFForwardParent
@end

@implementation PFForwardChild
- (NSString *)greet { return @"child-hello"; }
@end

static void PFSwizzledForward(id self, SEL _cmd, NSInvocation *invocation)
{
    if (PFIsDynamic([invocation selector])) {
        PFAnswer(invocation, @"parent-swizzled");
        return;
    }
    [self doesNotRecognizeSelector:[invocation selector]];
}

void pf_forward_swizzle_parent(int on)
{
    PF_POOL_BEGIN
        Class parent = [PFForwardParent class];
        class_replaceMethod(parent, @selector(forwardInvocation:),
                            on ? (IMP)PFSwizzledForward : PFParentOriginalForward, "v@:@");
    PF_POOL_END
}
