#import "JPSuiteClasses.h"

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wincomplete-implementation"

@implementation JPInheritTest01ObjectA
- (NSString *)m1 { return @"01ObjA_m1"; }
- (NSString *)m2 { return @"01ObjA_m2"; }
@end
@implementation JPInheritTest01ObjectB
- (NSString *)m1 { return @"01ObjB_m1"; }
@end
@implementation JPInheritTest02ObjectA
- (NSString *)m1 { return @"02ObjA_m1"; }
- (NSString *)m2 { return @"02ObjA_m2"; }
- (NSString *)m3 { return @"02ObjA_m3"; }
@end
@implementation JPInheritTest02ObjectB
- (NSString *)m1 { return @"02ObjB_m1"; }
- (NSString *)m3 { return @"02ObjB_m3"; }
@end
@implementation JPInheritTest02ObjectC
- (NSString *)m2 { return @"02ObjC_m2"; }
@end
@implementation JPInheritTest03ObjectA
- (NSString *)m1 { return @"03ObjA_m1"; }
- (NSString *)m2 { return @"03ObjA_m2"; }
@end
@implementation JPInheritTest03ObjectB
- (NSString *)m1 { return @"03ObjB_m1"; }
@end
@implementation JPInheritTest03ObjectC
- (NSString *)m2 { return @"03ObjC_m2"; }
@end

@implementation JPSuperTestA
- (NSString *)method { return @"A"; }
@end
@implementation JPSuperTestB
- (NSString *)method { return @"B"; }
@end
@implementation JPSuperTestB1
- (NSString *)method { return [[super method] stringByAppendingString:@"1"]; }
@end
@implementation JPSuperTestC
- (NSString *)method { return @"C"; }
@end
@implementation JPSuperTestC1
- (NSString *)method { return [[super method] stringByAppendingString:@"1"]; }
@end
@implementation JPSuperTestC2
- (NSString *)method { return [[super method] stringByAppendingString:@"2"]; }
@end
@implementation JPSuperTestResult
+ (BOOL)isPassA { return NO; }
+ (BOOL)isPassB { return NO; }
/* superTest.js makes JPSuperTestC1's method "C1" + super's "C": C2 then answers "C1C2". */
+ (BOOL)isPassC { return [[[[[JPSuperTestC2 alloc] init] autorelease] method] isEqual:@"C1C2"]; }
@end

@implementation JPJSClassTest
+ (BOOL)isPassA { return NO; }
+ (BOOL)isPassB { return NO; }
+ (BOOL)isPassC { return NO; }
@end

/* The C functions jsCFunctionTest.js defines with defineCFunction (exported: looked up by name). */
static bool JPVoidFunctionCalled = false;
CGSize cfuncWithCGSize(CGSize size) { return size; }
CGRect cfuncWithCGRect(CGRect rect) { return rect; }
id cfuncWithId(NSString *str) { return str; }
int cfuncWithInt(int num) { return num; }
CGFloat cfuncWithCGFloat(CGFloat num) { return num; }
void *cfuncReturnPointer(void) { return "abc"; }
bool cfuncWithPointerIsEqual(char *a) { return a[0] == 'a'; }
void cfuncVoid(void) {}

@implementation JPCFunctionTest
+ (BOOL)testCfuncWithCGSize { return NO; }
+ (BOOL)testCfuncWithCGRect { return NO; }
+ (BOOL)testCfuncWithId { return NO; }
+ (BOOL)testCfuncWithInt { return NO; }
+ (BOOL)testCfuncWithCGFloat { return NO; }
+ (BOOL)testCfuncReturnPointer { return NO; }
+ (BOOL)testCFunctionReturnClass { return NO; }
+ (BOOL)testCFunctionVoid { return JPVoidFunctionCalled; }
+ (void)setupCFunctionVoidSucc { JPVoidFunctionCalled = true; }
@end

@implementation JPNumberTest
+ (BOOL)testJPNumNSNumber { return NO; }
+ (BOOL)testJPNumNSDecimalNumber { return NO; }
+ (BOOL)testJPNumToJS { return NO; }
+ (BOOL)testJPNUmToOC { return NO; }
@end

@implementation JPMultithreadTestObject
- (instancetype)init
{
    if ((self = [super init])) {
        _values = [[NSMutableArray alloc] init];
        [_values addObject:[NSNumber numberWithInt:-1]];   /* a marker the first -addValue: removes */
    }
    return self;
}
- (void)dealloc { [_values release]; [super dealloc]; }
- (int)objectId { return _objectId; }
- (void)setObjectId:(int)objectId { _objectId = objectId; }
- (void)addValueJS:(NSNumber *)number {}
- (void)addValue:(NSNumber *)number
{
    if ([_values count] > 0 && [[_values objectAtIndex:0] integerValue] < 0) [_values removeAllObjects];
    [_values addObject:number];
}
- (void)addValueNoPatch:(NSNumber *)number { [_values addObject:number]; }
- (BOOL)checkAllValues
{
    for (NSNumber *number in _values) if ([number intValue] != _objectId) return NO;
    return YES;
}
@end

/* No methods: newProtocolTest.js adds them, typed by the protocols it defines. */
@implementation baseTestProtocolObject
@end
@implementation structTestProtocolObject
@end
@implementation objectTestProtocolObject
@end
@implementation specialTestProtocolObject
@end
@implementation typeEncodeTestProtocolObject
@end
@implementation classTestProtocolObject
@end

@implementation newBlockTest
- (BOOL)success { return _success; }
- (void)setSuccess:(BOOL)success { _success = success; }
/* JSPatch replaces its old block bridge here (an extension clearing __genBlock); this engine
   has one block bridge, so there is nothing to remove. */
- (void)removeJPBlock {}
- (void)testJSBlockToOCCall {}
- (void)performBlock:(CGFloat (^)(int arg1, CGPoint arg2, double arg3, CGFloat arg4, NSNumber *arg5, NSString *arg6, NSInteger arg7))block
{
    CGFloat expected = (CGFloat)(1 + 3.3 + 3.3 + 1.1 + 1.1 + 11 + 4.4 + 17);
    CGPoint point = { 3.3, 3.3 };
    BOOL first = block(1, point, 1.1, 1.1, [NSNumber numberWithInt:11], @"4.4", 17) == expected;
    BOOL second = block(1, point, 1.1, 1.1, [NSNumber numberWithInt:11], @"4.4", 17) == expected;
    _success = first && second;
}
@end

static NSObject *JPPerformanceObject;

@implementation JPPerformanceTest
- (void)testJSCallOCEmptyMethod {}
- (void)testJSCallOCMethodWithParamObject {}
- (void)testJSCallOCMethodReturnObject {}
- (void)testJSCallJSEmptyMethod {}
- (void)testJSCallJSMethodWithLargeDictionaryParam {}
- (void)testJSCallJSMethodWithLargeDictionaryParamAutoConvert {}
- (void)testJSCallJSMethodWithParam {}
- (void)testJSCallMallocJPMemory {}
- (void)testJSCallMallocJPCFunction {}
- (void)testOCCallEmptyMethod { for (int i = 0; i < 10000; i++) [self emptyMethodToOverride]; }
- (void)testOCCallMethodWithParamObject
{
    NSObject *object = [[NSObject alloc] init];
    for (int i = 0; i < 10000; i++) [self methodWithParamObjectToOverride:object];
    [object release];
}
- (void)testOCCallMethodReturnObject { for (int i = 0; i < 10000; i++) [self methodReturnObjectToOverride]; }
- (void)emptyMethod {}
- (void)methodWithParamObject:(NSObject *)object {}
- (NSObject *)methodReturnObject { return JPPerformanceObject; }
- (void)emptyMethodToOverride {}
- (void)methodWithParamObjectToOverride:(NSObject *)object {}
- (NSObject *)methodReturnObjectToOverride { return nil; }
@end

#pragma clang diagnostic pop
