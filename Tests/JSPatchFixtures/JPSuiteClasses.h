/* The other classes JSPatch's scripts patch (JSPatch's JPInheritanceTestObjects.h,
   JPSuperTestObject.h, JPJSClassTest.h, JPCFunctionTest.h, JPNumberTest.h,
   JPMultithreadTestObject.h, newProtocolTest.h, newBlockTest.h, JPPerformanceTest.h),
   rewritten from what the scripts and JSPatchTests.m need. Methods a script defines are not
   implemented here; the +isPass... and +test... methods answer NO until a script replaces them. */
#ifndef JP_SUITE_CLASSES_H
#define JP_SUITE_CLASSES_H

#import "JPStandIns.h"

@interface JPInheritTest01ObjectA : NSObject
- (NSString *)m1;
- (NSString *)m2;
@end
@interface JPInheritTest01ObjectB : JPInheritTest01ObjectA
@end
@interface JPInheritTest02ObjectA : NSObject
- (NSString *)m1;
- (NSString *)m2;
- (NSString *)m3;
@end
@interface JPInheritTest02ObjectB : JPInheritTest02ObjectA
@end
@interface JPInheritTest02ObjectC : JPInheritTest02ObjectB
@end
@interface JPInheritTest03ObjectA : NSObject
- (NSString *)m1;
- (NSString *)m2;
@end
@interface JPInheritTest03ObjectB : JPInheritTest03ObjectA
@end
@interface JPInheritTest03ObjectC : JPInheritTest03ObjectA
@end

@interface JPSuperTestA : NSObject
- (NSString *)method;
@end
@interface JPSuperTestB : NSObject
- (NSString *)method;
@end
@interface JPSuperTestB1 : JPSuperTestB
@end
@interface JPSuperTestC : NSObject
- (NSString *)method;
@end
@interface JPSuperTestC1 : JPSuperTestC
@end
@interface JPSuperTestC2 : JPSuperTestC1
@end
@interface JPSuperTestResult : NSObject
+ (BOOL)isPassA;
+ (BOOL)isPassB;
+ (BOOL)isPassC;
@end

@interface JPJSClassTest : NSObject
+ (BOOL)isPassA;
+ (BOOL)isPassB;
+ (BOOL)isPassC;
@end

@interface JPCFunctionTest : NSObject
+ (BOOL)testCfuncWithCGSize;
+ (BOOL)testCfuncWithCGRect;
+ (BOOL)testCfuncWithId;
+ (BOOL)testCfuncWithInt;
+ (BOOL)testCfuncWithCGFloat;
+ (BOOL)testCfuncReturnPointer;
+ (BOOL)testCFunctionReturnClass;
+ (BOOL)testCFunctionVoid;
+ (void)setupCFunctionVoidSucc;
@end

@interface JPNumberTest : NSObject
+ (BOOL)testJPNumNSNumber;
+ (BOOL)testJPNumNSDecimalNumber;
+ (BOOL)testJPNumToJS;
+ (BOOL)testJPNUmToOC;
@end

@interface JPMultithreadTestObject : NSObject
{
    NSMutableArray *_values;
    int _objectId;
}
- (int)objectId;
- (void)setObjectId:(int)objectId;
- (void)addValueJS:(NSNumber *)number;
- (void)addValue:(NSNumber *)number;
- (void)addValueNoPatch:(NSNumber *)number;
- (BOOL)checkAllValues;
@end

@interface baseTestProtocolObject : NSObject
- (int)testProtocol:(BOOL)arg;
- (void)test2Protocol:(NSInteger)arg;
- (void)test3Protocol:(BOOL)arg1 withB:(float)arg2 withC:(CGFloat)arg3;
@end
@interface structTestProtocolObject : NSObject
- (int)testProtocol:(CGRect)arg;
- (CGPoint)test2Protocol:(CGSize)arg;
- (CGSize)test3Protocol:(CGRect)arg1 withB:(float)arg2 withC:(NSInteger)arg3;
@end
@interface objectTestProtocolObject : NSObject
- (int)testProtocol:(NSString *)arg;
- (int)test2Protocol:(NSString *)arg;
- (CGSize)test3Protocol:(NSArray *)arg1 withB:(NSString *)arg2 withC:(NSInteger)arg3;
@end
@interface specialTestProtocolObject : NSObject
- (void)testProtocol:(SEL)arg;
- (void)test2Protocol:(void (^)(void))arg;
- (void)test3Protocol:(float)arg1 withB:(void (^)(void))arg2 withC:(SEL)arg3;
@end
@interface typeEncodeTestProtocolObject : NSObject
- (void)testProtocol:(id)arg;
- (NSString *)test2Protocol:(NSArray *)arg1 withB:(NSString *)arg2;
@end
@interface classTestProtocolObject : NSObject
+ (int)testProtocol:(NSString *)arg;
+ (int)test2Protocol:(NSString *)arg;
+ (CGSize)test3Protocol:(NSArray *)arg1 withB:(NSString *)arg2 withC:(NSInteger)arg3;
@end

@interface newBlockTest : NSObject
{
    BOOL _success;
}
- (BOOL)success;
- (void)setSuccess:(BOOL)success;
- (void)removeJPBlock;
- (void)testJSBlockToOCCall;
@end

@interface JPPerformanceTest : NSObject
- (void)testJSCallOCEmptyMethod;
- (void)testJSCallOCMethodWithParamObject;
- (void)testJSCallOCMethodReturnObject;
- (void)testJSCallJSEmptyMethod;
- (void)testJSCallJSMethodWithLargeDictionaryParam;
- (void)testJSCallJSMethodWithLargeDictionaryParamAutoConvert;
- (void)testJSCallJSMethodWithParam;
- (void)testOCCallEmptyMethod;
- (void)testOCCallMethodWithParamObject;
- (void)testOCCallMethodReturnObject;
- (void)testJSCallMallocJPMemory;
- (void)testJSCallMallocJPCFunction;
@end

#endif
