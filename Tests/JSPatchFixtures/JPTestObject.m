#import "JPTestObject.h"
#include <objc/runtime.h>
#include <math.h>
#include <float.h>
#include <string.h>
#include <stdlib.h>
#include <Block.h>

void (*JPRunOnMainAfter)(double seconds, void (*fn)(void *), void *argument);

typedef void (^JPStringIntBlock)(NSString *str, int num);
typedef id (^JPDictViewBlock)(NSDictionary *dict, UIView *view);
typedef NSString *(^JPErrorBlock)(NSError *error);

/* The struct behind the void * that -funcReturnPointer hands out and the pointer methods check. */
typedef struct { char *name; int idx; } JPTestStruct;

static UIView *JPNewView(CGRect frame) { return [[[UIView alloc] initWithFrame:frame] autorelease]; }

@implementation JPTestObject

#define JP_FLAG_IMPL(name, setter) - (BOOL)name { return _##name; } - (void)setter:(BOOL)value { _##name = value; }
JP_TEST_OBJECT_FLAGS(JP_FLAG_IMPL)
#undef JP_FLAG_IMPL

- (void)dealloc
{
    [_testView release];
    [super dealloc];
}

- (UIView *)testView { return _testView; }
- (void)setTestView:(UIView *)view { [_testView autorelease]; _testView = [view retain]; }

#pragma mark - base

- (void)funcReturnVoid { self.funcReturnVoidPassed = YES; }
- (NSString *)funcReturnString { return @"stringFromOC"; }
+ (NSString *)classFunCallReturnString { return @"classFunCallReturnString"; }
- (Class)funcReturnClass { return [self class]; }
- (Class)funcToSwizzleReturnClass { return Nil; }
- (double)funcReturnDouble { return 100.0; }
- (CGRect)funcWithRectAndReturnRect:(CGRect)rect { return rect; }
- (CGPoint)funcWithPointAndReturnPoint:(CGPoint)point { return point; }
- (CGSize)funcWithSizeAndReturnSize:(CGSize)size { return size; }
- (NSRange)funcWithRangeAndReturnRange:(NSRange)range { return range; }
- (UIView *)funcReturnViewWithFrame:(CGRect)frame { return JPNewView(frame); }
- (UIView *)funcWithViewAndReturnView:(UIView *)view { return view; }
- (NSString *)funcWithClassAndReturnString:(Class)cls { return NSStringFromClass(cls); }
- (void)funcWithInt:(int)intValue { self.funcWithIntPassed = intValue == 42; }
- (void)funcWithNil:(NSObject *)nilObj { self.funcWithNilPassed = nilObj == nil; }
- (id)funcReturnNil { return nil; }
- (BOOL)funcTestBool:(BOOL)b { return b; }
- (NSNumber *)funcTestNSNumber:(NSNumber *)num { return num; }

- (void)funcWithNil:(NSObject *)nilObj dict:(NSDictionary *)dict str:(NSString *)str num:(double)num
{
    self.funcWithNilAndOthersPassed = nilObj == nil && [[dict objectForKey:@"k"] isEqual:@"JSPatch"]
        && [str isEqual:@"JSPatch"] && num - 4.2 < 0.001;
}

- (void)funcWithNull:(NSNull *)nullObj { self.funcWithNullPassed = [nullObj isKindOfClass:[NSNull class]]; }

#pragma mark - dictionaries and arrays

- (void)funcWithDict:(NSDictionary *)dict andDouble:(double)doubleValue
{
    self.funcWithDictAndDoublePassed = [[dict objectForKey:@"test"] isEqual:@"test"] && doubleValue - 4.2 < 0.001;
}
- (NSDictionary *)funcReturnDict:(NSDictionary *)dict { return dict; }
- (NSDictionary *)funcReturnDictStringInt
{
    return [NSDictionary dictionaryWithObjectsAndKeys:@"stringFromOC", @"str", [NSNumber numberWithInt:42], @"num", nil];
}
- (NSDictionary *)funcReturnDictStringView
{
    return [NSDictionary dictionaryWithObjectsAndKeys:JPNewView(CGRectMake(0, 0, 100, 100)), @"view", @"stringFromOC", @"str", nil];
}
- (NSArray *)funcReturnArrayControllerViewString
{
    return [NSArray arrayWithObjects:[[[UIViewController alloc] init] autorelease], [[[UIView alloc] init] autorelease],
            @"stringFromOC", nil];
}
- (NSString *)getString { return @"JSPatch"; }
- (NSArray *)getArray { return [NSArray arrayWithObjects:@"JSPatch", [NSNumber numberWithInt:1], nil]; }
- (NSDictionary *)getDictionary { return [NSDictionary dictionaryWithObject:@"JSPatch" forKey:@"k"]; }
- (void)funcTestBoxingObj:(NSArray *)data
{
    NSString *str = [data objectAtIndex:0];
    NSDictionary *dict = [data objectAtIndex:1];
    NSArray *arr = [data objectAtIndex:2];
    self.testBoxingObjPassed = [str isEqual:[self getString]]
        && [[dict objectForKey:@"k"] isEqual:[[self getDictionary] objectForKey:@"k"]]
        && [[arr objectAtIndex:0] isEqual:[[self getArray] objectAtIndex:0]];
}

#pragma mark - blocks

- (JPStringIntBlock)funcReturnBlock
{
    return Block_copy(^(NSString *str, int num) {
        self.funcReturnBlockPassed = [str isEqual:@"stringFromJS"] && num == 42;
    });
}
- (JPDictViewBlock)funcReturnObjectBlock
{
    return Block_copy(^id(NSDictionary *dict, UIView *view) {
        self.funcReturnObjectBlockPassed = [[dict objectForKey:@"str"] isEqual:@"stringFromJS"]
            && [[dict objectForKey:@"view"] isKindOfClass:[UIView class]] && [view frame].size.width == 100;
        return @"succ";
    });
}
- (JPStringIntBlock)funcReturnJSBlock:(JPStringIntBlock)jsblock { return jsblock; }
- (void)callBlockWithStringAndInt:(id (^)(NSString *str, int num))block
{
    id ret = block(@"stringFromOC", 42);
    self.callBlockWithStringAndIntReturnValuePassed = [ret isEqual:@"succ"];
}

struct JPDelayedCall { JPTestObject *object; id (^block)(NSString *, int); };
static void JPRunDelayedBlock(void *argument)
{
    struct JPDelayedCall *call = argument;
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    id ret = call->block(@"stringFromOC", 42);
    call->object.callBlockWithStringAndIntReturnValuePassed = [ret isEqual:@"succ"];
    [pool release];
    Block_release(call->block);
    [call->object release];
    free(call);
}
/* Calls the block a second later on the main queue: the JS function behind it must survive
   the collections the script forces meanwhile. */
- (void)callBlockDelay:(id (^)(NSString *str, int num))block
{
    if (!JPRunOnMainAfter) return;
    struct JPDelayedCall *call = malloc(sizeof *call);
    call->object = [self retain];
    call->block = Block_copy(block);
    JPRunOnMainAfter(1.0, JPRunDelayedBlock, call);
}
- (void)callBlockWithArrayAndView:(void (^)(NSArray *arr, UIView *view))block
{
    UIView *view = JPNewView(CGRectMake(0, 0, 100, 100));
    block([NSArray arrayWithObjects:@"stringFromOC", view, nil], view);
}
- (void)callBlockWithBoolAndBlock:(void (^)(BOOL b, JPStringIntBlock block))block
{
    block(YES, ^(NSString *str, int num) {
        self.callBlockWithBoolAndBlockPassed = [str isEqual:@"stringFromJS"] && num == 42;
    });
}
- (void)callBlockWithObjectAndBlock:(void (^)(UIView *view, JPDictViewBlock block))block
{
    block(JPNewView(CGRectMake(0, 0, 100, 100)), ^id(NSDictionary *dict, UIView *view) {
        self.callBlockWithObjectAndBlockPassed = [[dict objectForKey:@"str"] isEqual:@"stringFromJS"]
            && [[dict objectForKey:@"view"] isKindOfClass:[UIView class]] && [view frame].size.width == 100;
        return @"succ";
    });
}
- (void)callBlockWithDouble:(double (^)(double num))block
{
    self.callBlockWithDoubleAndReturnDoublePassed = fabs(block(4.2) - 8.4) < 0.1;
}

#pragma mark - methods test.js replaces, called natively

- (void)callSwizzleMethod
{
    [self funcToSwizzleWithString:@"stringFromOC" view:[[[UIView alloc] init] autorelease] int:42];
    [self funcToSwizzle:4.2 view:[[[UIView alloc] init] autorelease]];
    UIView *view = [self funcToSwizzleReturnView:JPNewView(CGRectMake(0, 0, 100, 100))];
    self.funcToSwizzleReturnViewPassed = [view frame].size.width == 100;
    self.funcToSwizzleParamNilPassed = [self funcToSwizzleReturnView:nil] == nil;
    self.funcToSwizzleReturnIntPassed = [self funcToSwizzleReturnInt:42] == 42;

    [JPTestObject classFuncToSwizzle:self int:10];
    if ([[JPTestObject classFuncToSwizzleReturnObj:self] isKindOfClass:[JPTestObject class]]) {
        self.classFuncToSwizzleReturnObjPassed = YES;
    }
    if ([JPTestObject classFuncToSwizzleReturnInt:42] == 42) self.classFuncToSwizzleReturnIntPassed = YES;
    if (fabs([JPTestObject classFuncToSwizzleReturnDouble:100.0] - 100.0) < FLT_EPSILON) {
        self.classFuncToSwizzleReturnDoublePassed = YES;
    }

    [self funcToSwizzleWithBlock:^(UIView *v, int num) { self.funcToSwizzleWithBlockPassed = v != nil && num == 42; }];
    [self funcToSwizzle_withUnderLine_:42];

    self.funcToSwizzleReturnRectPassed = [self funcToSwizzleReturnRect:CGRectMake(0, 0, 100, 100)].size.width == 100;
    self.funcToSwizzleReturnPointPassed = [self funcToSwizzleReturnPoint:CGPointMake(42, 42)].x == 42;
    self.funcToSwizzleReturnSizePassed = [self funcToSwizzleReturnSize:CGSizeMake(42, 42)].width == 42;
    self.funcToSwizzleReturnRangePassed = [self funcToSwizzleReturnRange:NSMakeRange(0, 42)].length == 42;
    self.funcToSwizzleReturnEdgeInsetsPassed = [self funcToSwizzleReturnEdgeInsets:UIEdgeInsetsMake(42, 42, 0, 0)].left == 42;

    SEL selector = [self funcToSwizzleTestSelector:@selector(funcToSwizzleTestSelector:)];
    self.funcToSwizzleTestSelectorPassed = selector != NULL && [NSStringFromSelector(selector) isEqual:@"funcToSwizzleTestSelector:"];
    char *cString = [self funcToSwizzleTestChar:"JSPatch"];
    self.funcToSwizzleTestCharPassed = cString != NULL && strcmp(cString, "JSPatch") == 0;
    Class cls = [self funcToSwizzleReturnClass];
    self.funcToSwizzleReturnClassPassed = [NSStringFromClass(cls) isEqual:@"UIView"];

    JPTestStruct *testStruct = malloc(sizeof(JPTestStruct));
    testStruct->idx = 42;
    testStruct->name = "JSPatch";
    JPTestStruct *returned = [self funcToSwizzleTestPointer:testStruct];
    self.funcToSwizzleTestPointerPassed = returned != NULL && returned->idx == 42 && strcmp(returned->name, "JSPatch") == 0;
    free(testStruct);
}

- (void)funcToSwizzleWithString:(NSString *)str view:(UIView *)view int:(NSInteger)i { self.funcToSwizzleWithStringViewIntPassed = NO; }
- (void)funcToSwizzle:(double)num view:(UIView *)view { self.funcToSwizzleViewCalledOriginalPassed = 4.2 - num < 0.01 && view != nil; }
- (UIView *)funcToSwizzleReturnView:(UIView *)view { return nil; }
- (int)funcToSwizzleReturnInt:(int)num { return 0; }
- (NSDictionary *)funcToSwizzleReturnDictionary:(NSDictionary *)dict { return nil; }
- (NSDictionary *)funcToSwizzleReturnJSDictionary { return nil; }
- (NSArray *)funcToSwizzleReturnArray:(NSArray *)arr { return nil; }
- (NSString *)funcToSwizzleReturnString:(NSString *)str { return nil; }
- (void)funcToSwizzleWithBlock:(void (^)(UIView *view, int num))block {}
- (void)funcToSwizzle_withUnderLine_:(int)num {}
- (CGRect)funcToSwizzleReturnRect:(CGRect)rect { return CGRectZero; }
- (CGPoint)funcToSwizzleReturnPoint:(CGPoint)point { return CGPointZero; }
- (CGSize)funcToSwizzleReturnSize:(CGSize)size { return CGSizeZero; }
- (NSRange)funcToSwizzleReturnRange:(NSRange)range { return NSMakeRange(0, 0); }
- (UIEdgeInsets)funcToSwizzleReturnEdgeInsets:(UIEdgeInsets)edgeInsets { return UIEdgeInsetsZero; }
- (void)funcToSwizzleTestGCD:(void (^)(void))block {}
- (Class)funcToSwizzleTestClass:(Class)cls { return Nil; }
- (SEL)funcToSwizzleTestSelector:(SEL)selector { return NULL; }
- (char *)funcToSwizzleTestChar:(char *)cStr { return NULL; }
- (char *)funcReturnChar { return "JSPatch"; }
- (void)funcTestChar:(char *)cStr { self.funcTestCharPassed = cStr != NULL && strcmp(cStr, "JSPatch") == 0; }
- (void *)funcToSwizzleTestPointer:(void *)pointer { return NULL; }

#pragma mark - pointers

- (BOOL)funcTestNSErrorPointer:(NSError **)error
{
    NSError *made = [NSError errorWithDomain:@"com.albert43" code:43
                                    userInfo:[NSDictionary dictionaryWithObject:@"test error" forKey:@"msg"]];
    if (error) *error = made;
    return NO;
}
- (void *)funcReturnPointer
{
    JPTestStruct *testStruct = malloc(sizeof(JPTestStruct));
    testStruct->idx = 42;
    testStruct->name = "JSPatch";
    return testStruct;
}
- (void)funcTestPointer:(void *)pointer
{
    JPTestStruct *testStruct = pointer;
    self.funcTestPointerPassed = testStruct != NULL && testStruct->idx == 42 && strcmp(testStruct->name, "JSPatch") == 0;
}
- (BOOL)funcTestGetPointer1:(NSString *)str { return [str isEqual:@"JSPatch"]; }
- (BOOL)funcTestGetPointer2:(NSError *)error
{
    return [[[error userInfo] description] isEqual:[[NSDictionary dictionaryWithObject:@"test" forKey:@"msg"] description]];
}
- (BOOL)funcTestGetPointer3:(void *)arr
{
    char *p = arr;
    for (int i = 0; i < 10; i++) if (p[i] != 'A') return NO;
    return YES;
}
- (JPErrorBlock)funcGenerateBlock
{
    return Block_copy(^NSString *(NSError *err) { return err ? [err description] : @"no error"; });
}
- (NSString *)excuteBlockWithNilParameters:(JPErrorBlock)blk { return blk ? blk(nil) : nil; }

#pragma mark - class methods

+ (void)classFuncToSwizzle:(JPTestObject *)testObject int:(NSInteger)i {}
+ (id)classFuncToSwizzleReturnObj:(JPTestObject *)obj
{
    obj.classFuncToSwizzleReturnObjCalledOriginalPassed = YES;
    return nil;
}
+ (int)classFuncToSwizzleReturnInt:(int)i { return 0; }
+ (double)classFuncToSwizzleReturnDouble:(double)d { return 0; }

#pragma mark - super, forwarding, overrides

- (void)funcCallSuper { self.funcCallSuperPassed = YES; }

- (void)callTestForward { [self performSelector:@selector(testForward) withObject:nil]; }
- (void)funcToForward { self.callForwardInvocationPassed = YES; }
- (void)forwardInvocation:(NSInvocation *)invocation
{
    if ([NSStringFromSelector([invocation selector]) isEqual:@"testForward"]) [self funcToForward];
}
- (NSMethodSignature *)methodSignatureForSelector:(SEL)selector
{
    if ([NSStringFromSelector(selector) isEqual:@"testForward"]) return [self methodSignatureForSelector:@selector(funcToForward)];
    return [super methodSignatureForSelector:selector];
}

- (NSString *)funcOverrideParentMethod { return @"orgi"; }

#pragma mark - CGAffineTransform and struct pointers

- (CGAffineTransform)funcWithTransform:(CGAffineTransform)transform { return transform; }
- (void)funcWithRectPointer:(CGRect *)rect
{
    self.funcWithRectPointerPassed = rect->size.width == 100;
    rect->origin.x = 42;
}
- (void)funcWithTransformPointer:(CGAffineTransform *)transform
{
    self.funcWithTransformPointerPassed = transform->a == 100;
    transform->tx = 42;
}
@end

@implementation JPTestSubObject
- (instancetype)init
{
    if ((self = [super init])) _funcCallSuperSubObjectPassed = YES;
    return self;
}
- (BOOL)funcCallSuperSubObjectPassed { return _funcCallSuperSubObjectPassed; }
- (void)setFuncCallSuperSubObjectPassed:(BOOL)value { _funcCallSuperSubObjectPassed = value; }
- (void)funcCallSuper { self.funcCallSuperSubObjectPassed = NO; }
@end

/* The protocol methods are not implemented here: protocolTest.js adds them with defineClass. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wprotocol"
#pragma clang diagnostic ignored "-Wobjc-method-access"
@implementation JPTestProtocolObject
- (BOOL)testProtocolMethods
{
    double d = [self protocolWithDouble:4.2 dict:[NSDictionary dictionaryWithObject:@"JSPatch" forKey:@"name"]];
    NSInteger i = [self protocolWithInt:42];
    NSString *s = [JPTestProtocolObject classProtocolWithString:@"JSPatch" int:42];
    return d - 4.2 < 0.001 && i == 42 && [s isEqual:@"JSPatch"];
}
@end
#pragma clang diagnostic pop

static void JPSwizzledSuperForwardInvocation(id object, SEL _cmd, NSInvocation *invocation)
{
    if ([NSStringFromSelector([invocation selector]) isEqual:@"testSwizzledSuperForwardInvocation"]) {
        [(JPTestSwizzledForwardInvocationSuperObject *)object setCallSwizzledSuperForwardInvocationPassed:YES];
    }
}

@implementation JPTestSwizzledForwardInvocationSuperObject
- (BOOL)callSwizzledSuperForwardInvocationPassed { return _callSwizzledSuperForwardInvocationPassed; }
- (void)setCallSwizzledSuperForwardInvocationPassed:(BOOL)value { _callSwizzledSuperForwardInvocationPassed = value; }
- (void)swizzleSuperForwoardInvocation
{
    class_replaceMethod([JPTestSwizzledForwardInvocationSuperObject class], @selector(forwardInvocation:),
                        (IMP)JPSwizzledSuperForwardInvocation, "v@:@");
}
- (void)forwardInvocation:(NSInvocation *)invocation
{
    if ([NSStringFromSelector([invocation selector]) isEqual:@"testSwizzledSuperForwardInvocation"]) {
        self.callSwizzledSuperForwardInvocationPassed = NO;
    }
}
@end

@implementation JPTestSwizzledForwardInvocationSubObject
- (void)callTestSwizzledSuperForwardInvocation
{
    [self performSelector:@selector(testSwizzledSuperForwardInvocation) withObject:nil];
}
- (NSMethodSignature *)methodSignatureForSelector:(SEL)selector
{
    if ([NSStringFromSelector(selector) isEqual:@"testSwizzledSuperForwardInvocation"]) {
        return [self methodSignatureForSelector:@selector(callTestSwizzledSuperForwardInvocation)];
    }
    return [super methodSignatureForSelector:selector];
}
@end
