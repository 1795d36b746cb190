/* The classes JSPatch's test.js and protocolTest.js patch and call (JSPatch's JPTestObject.h,
   rewritten from what the scripts and JSPatchTests.m need): every *Passed flag is a BOOL
   property the scripts or the native methods below set. */
#ifndef JP_TEST_OBJECT_H
#define JP_TEST_OBJECT_H

#import "JPStandIns.h"

/* X(getter, setter) for every flag of JPTestObject. */
#define JP_TEST_OBJECT_FLAGS(X) \
    X(funcReturnVoidPassed, setFuncReturnVoidPassed) \
    X(funcReturnStringPassed, setFuncReturnStringPassed) \
    X(funcReturnDoublePassed, setFuncReturnDoublePassed) \
    X(funcReturnClassPassed, setFuncReturnClassPassed) \
    X(funcReturnViewWithFramePassed, setFuncReturnViewWithFramePassed) \
    X(funcWithViewAndReturnViewPassed, setFuncWithViewAndReturnViewPassed) \
    X(funcWithIntPassed, setFuncWithIntPassed) \
    X(funcWithNilPassed, setFuncWithNilPassed) \
    X(funcReturnNilPassed, setFuncReturnNilPassed) \
    X(funcWithNilAndOthersPassed, setFuncWithNilAndOthersPassed) \
    X(funcWithNullPassed, setFuncWithNullPassed) \
    X(funcTestBoolPassed, setFuncTestBoolPassed) \
    X(funcTestNSNumberPassed, setFuncTestNSNumberPassed) \
    X(funcWithDictAndDoublePassed, setFuncWithDictAndDoublePassed) \
    X(funcWithRangeAndReturnRangePassed, setFuncWithRangeAndReturnRangePassed) \
    X(funcWithRectAndReturnRectPassed, setFuncWithRectAndReturnRectPassed) \
    X(funcWithPointAndReturnPointPassed, setFuncWithPointAndReturnPointPassed) \
    X(funcWithSizeAndReturnSizePassed, setFuncWithSizeAndReturnSizePassed) \
    X(funcWithClassAndReturnStringPassed, setFuncWithClassAndReturnStringPassed) \
    X(funcReturnDictStringIntPassed, setFuncReturnDictStringIntPassed) \
    X(funcReturnDictStringViewPassed, setFuncReturnDictStringViewPassed) \
    X(funcReturnArrayControllerViewStringPassed, setFuncReturnArrayControllerViewStringPassed) \
    X(funcReturnDictPassed, setFuncReturnDictPassed) \
    X(testBoxingObjPassed, setTestBoxingObjPassed) \
    X(funcReturnBlockPassed, setFuncReturnBlockPassed) \
    X(funcReturnObjectBlockPassed, setFuncReturnObjectBlockPassed) \
    X(funcReturnObjectBlockReturnValuePassed, setFuncReturnObjectBlockReturnValuePassed) \
    X(funcReturnJSBlockPassed, setFuncReturnJSBlockPassed) \
    X(callBlockWithStringAndIntPassed, setCallBlockWithStringAndIntPassed) \
    X(callBlockWithStringAndIntReturnValuePassed, setCallBlockWithStringAndIntReturnValuePassed) \
    X(callBlockWithArrayAndViewPassed, setCallBlockWithArrayAndViewPassed) \
    X(callBlockWithBoolAndBlockPassed, setCallBlockWithBoolAndBlockPassed) \
    X(callBlockWithObjectAndBlockPassed, setCallBlockWithObjectAndBlockPassed) \
    X(callBlockWithObjectAndBlockReturnValuePassed, setCallBlockWithObjectAndBlockReturnValuePassed) \
    X(callBlockWithDoubleAndReturnDoublePassed, setCallBlockWithDoubleAndReturnDoublePassed) \
    X(funcToSwizzleWithStringViewIntPassed, setFuncToSwizzleWithStringViewIntPassed) \
    X(funcToSwizzleViewPassed, setFuncToSwizzleViewPassed) \
    X(funcToSwizzleViewCalledOriginalPassed, setFuncToSwizzleViewCalledOriginalPassed) \
    X(funcToSwizzleReturnViewPassed, setFuncToSwizzleReturnViewPassed) \
    X(funcToSwizzleParamNilPassed, setFuncToSwizzleParamNilPassed) \
    X(funcToSwizzleReturnIntPassed, setFuncToSwizzleReturnIntPassed) \
    X(funcToSwizzleWithBlockPassed, setFuncToSwizzleWithBlockPassed) \
    X(funcToSwizzle_withUnderLine_Passed, setFuncToSwizzle_withUnderLine_Passed) \
    X(funcToSwizzleReturnRectPassed, setFuncToSwizzleReturnRectPassed) \
    X(funcToSwizzleReturnPointPassed, setFuncToSwizzleReturnPointPassed) \
    X(funcToSwizzleReturnSizePassed, setFuncToSwizzleReturnSizePassed) \
    X(funcToSwizzleReturnRangePassed, setFuncToSwizzleReturnRangePassed) \
    X(funcToSwizzleReturnEdgeInsetsPassed, setFuncToSwizzleReturnEdgeInsetsPassed) \
    X(funcToSwizzleReturnRectJSPassed, setFuncToSwizzleReturnRectJSPassed) \
    X(funcToSwizzleReturnPointJSPassed, setFuncToSwizzleReturnPointJSPassed) \
    X(funcToSwizzleReturnSizeJSPassed, setFuncToSwizzleReturnSizeJSPassed) \
    X(funcToSwizzleReturnRangeJSPassed, setFuncToSwizzleReturnRangeJSPassed) \
    X(funcToSwizzleReturnEdgeInsetsJSPassed, setFuncToSwizzleReturnEdgeInsetsJSPassed) \
    X(funcToSwizzleTestGCDPassed, setFuncToSwizzleTestGCDPassed) \
    X(funcToSwizzleTestClassPassed, setFuncToSwizzleTestClassPassed) \
    X(funcToSwizzleTestSelectorPassed, setFuncToSwizzleTestSelectorPassed) \
    X(funcToSwizzleTestCharPassed, setFuncToSwizzleTestCharPassed) \
    X(funcToSwizzleReturnClassPassed, setFuncToSwizzleReturnClassPassed) \
    X(funcTestCharPassed, setFuncTestCharPassed) \
    X(funcToSwizzleTestPointerPassed, setFuncToSwizzleTestPointerPassed) \
    X(funcTestPointerPassed, setFuncTestPointerPassed) \
    X(funcTestSizeofPassed, setFuncTestSizeofPassed) \
    X(funcTestGetPointerPassed, setFuncTestGetPointerPassed) \
    X(funcTestNSErrorPointerPassed, setFuncTestNSErrorPointerPassed) \
    X(funcTestNilParametersInBlockPassed, setFuncTestNilParametersInBlockPassed) \
    X(classFuncToSwizzlePassed, setClassFuncToSwizzlePassed) \
    X(classFuncToSwizzleReturnObjPassed, setClassFuncToSwizzleReturnObjPassed) \
    X(classFuncToSwizzleReturnObjCalledOriginalPassed, setClassFuncToSwizzleReturnObjCalledOriginalPassed) \
    X(classFuncToSwizzleReturnIntPassed, setClassFuncToSwizzleReturnIntPassed) \
    X(classFuncToSwizzleReturnDoublePassed, setClassFuncToSwizzleReturnDoublePassed) \
    X(funcCallSuperPassed, setFuncCallSuperPassed) \
    X(callForwardInvocationPassed, setCallForwardInvocationPassed) \
    X(propertySetFramePassed, setPropertySetFramePassed) \
    X(propertySetViewPassed, setPropertySetViewPassed) \
    X(newTestObjectReturnViewPassed, setNewTestObjectReturnViewPassed) \
    X(newTestObjectReturnBoolPassed, setNewTestObjectReturnBoolPassed) \
    X(newTestObjectCustomFuncPassed, setNewTestObjectCustomFuncPassed) \
    X(mutableArrayPassed, setMutableArrayPassed) \
    X(mutableStringPassed, setMutableStringPassed) \
    X(mutableDictionaryPassed, setMutableDictionaryPassed) \
    X(funcWithTransformPassed, setFuncWithTransformPassed) \
    X(transformTranslatePassed, setTransformTranslatePassed) \
    X(funcWithRectPointerPassed, setFuncWithRectPointerPassed) \
    X(funcWithTransformPointerPassed, setFuncWithTransformPointerPassed) \
    X(consoleLogPassed, setConsoleLogPassed) \
    X(overrideParentMethodPassed, setOverrideParentMethodPassed) \
    X(variableParameterMethodPassed, setVariableParameterMethodPassed) \

@interface JPTestObject : NSObject
{
#define JP_FLAG_IVAR(name, setter) BOOL _##name;
    JP_TEST_OBJECT_FLAGS(JP_FLAG_IVAR)
#undef JP_FLAG_IVAR
    UIView *_testView;
}
#define JP_FLAG_DECL(name, setter) - (BOOL)name; - (void)setter:(BOOL)value;
JP_TEST_OBJECT_FLAGS(JP_FLAG_DECL)
#undef JP_FLAG_DECL
- (UIView *)testView;
- (void)setTestView:(UIView *)view;
- (void)callSwizzleMethod;
- (NSString *)funcOverrideParentMethod;
- (void)funcToSwizzleTestGCD:(void (^)(void))block;
- (NSDictionary *)funcToSwizzleReturnDictionary:(NSDictionary *)dict;
- (NSDictionary *)funcToSwizzleReturnJSDictionary;
- (NSArray *)funcToSwizzleReturnArray:(NSArray *)arr;
- (NSString *)funcToSwizzleReturnString:(NSString *)str;
@end

@interface JPTestSubObject : JPTestObject
{
    BOOL _funcCallSuperSubObjectPassed;
}
- (BOOL)funcCallSuperSubObjectPassed;
- (void)setFuncCallSuperSubObjectPassed:(BOOL)value;
@end

@protocol JPTestProtocol <NSObject>
- (double)protocolWithDouble:(double)num dict:(NSDictionary *)dictionary;
+ (NSString *)classProtocolWithString:(NSString *)string int:(NSInteger)num;
@end

@protocol JPTestProtocol2 <NSObject>
@optional
- (NSInteger)protocolWithInt:(NSInteger)num;
@end

@interface JPTestProtocolObject : NSObject <JPTestProtocol, JPTestProtocol2>
- (BOOL)testProtocolMethods;
@end

@interface JPTestSwizzledForwardInvocationSuperObject : NSObject
{
    BOOL _callSwizzledSuperForwardInvocationPassed;
}
- (BOOL)callSwizzledSuperForwardInvocationPassed;
- (void)setCallSwizzledSuperForwardInvocationPassed:(BOOL)value;
- (void)swizzleSuperForwoardInvocation;
@end

@interface JPTestSwizzledForwardInvocationSubObject : JPTestSwizzledForwardInvocationSuperObject
- (void)callTestSwizzledSuperForwardInvocation;
@end

/* Runs `fn(argument)` on the main queue after `seconds` (set by the Swift test: this target
   has no libdispatch of its own). */
extern void (*JPRunOnMainAfter)(double seconds, void (*fn)(void *), void *argument);

#endif
