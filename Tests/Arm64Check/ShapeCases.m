/* Every argument shape the register paths admit, each driven through every route the engine takes
   on a platform without libffi (iOS), and compared with compiled code calling the same function:
   - a C function called by the engine (PEInvokeFunction: register or mixed-register call);
   - a compiled block called by the engine (PEBlockInvoke: its invoke function, or NSInvocation);
   - an engine block called by compiled code (PEBlockCreate: register or mixed-register entry);
   - a message sent by the engine (PEMessageSend: registers, or NSInvocation);
   - a patched method called by compiled code, on the forwarding route (NSInvocation marshalling,
     -forwardInvocation:) and on the closure route (register entries where they fit), the patch
     calling the original implementation through the engine;
   - a swizzled method called by compiled code: the swizzle block called by the engine, calling
     its original (a register or mixed-register entry) natively.
   Shapes no register path carries must fall back (NSInvocation) or fail with the documented
   message, never be called with arguments misplaced. */
#import "Check.h"
#import "Arity.h"
#include "PEInternal.h"
#include "PatchRuntime.h"
#include "PESwizzle.h"
#include <string.h>

/* name, VALUE or VOID, return type, argument types. Integer registers: 6 in the budget, of which
   a method's self and _cmd take 2 and a block takes 1; floating-point registers: 8. */
#define AC_SHAPES(X) \
    X(signedWidths, VALUE, int64_t, int8_t, int16_t, int32_t, int64_t) \
    X(unsignedWidths, VALUE, uint64_t, uint8_t, uint16_t, uint32_t, uint64_t) \
    X(returnsInt8, VALUE, int8_t, int8_t, int32_t) \
    X(returnsUInt8, VALUE, uint8_t, uint8_t) \
    X(returnsInt16, VALUE, int16_t, int16_t, uint16_t) \
    X(returnsUInt16, VALUE, uint16_t, uint16_t) \
    X(returnsInt32, VALUE, int32_t, int32_t, int64_t) \
    X(returnsUInt32, VALUE, uint32_t, uint32_t) \
    X(returnsBool, VALUE, BOOL, BOOL, bool, char, unsigned char) \
    X(sixNarrow, VALUE, int32_t, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t) \
    X(pointers, VALUE, id, id, SEL, Class, char *, void *) \
    X(oneFloat, VALUE, float, float) \
    X(oneDouble, VALUE, double, double) \
    X(eightFloats, VALUE, float, float, float, float, float, float, float, float, float) \
    X(eightDoubles, VALUE, double, double, double, double, double, double, double, double, double) \
    X(floatDoubleAlternating, VALUE, double, float, double, float, double) \
    X(integersAmongDoubles, VALUE, double, int8_t, double, uint16_t, float, int32_t, double, uint64_t) \
    X(fourIntegersEightDoubles, VALUE, double, int32_t, int64_t, uint8_t, int16_t, \
      double, double, double, double, double, double, double, double) \
    X(sixIntegersEightDoubles, VALUE, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, \
      double, double, double, double, double, double, double, double) \
    X(floatFromIntegers, VALUE, float, int32_t, uint64_t) \
    X(point, VALUE, NSPoint, NSPoint) \
    X(sizeFromPointAndSize, VALUE, NSSize, NSPoint, NSSize) \
    X(rect, VALUE, NSRect, NSRect) \
    X(rectDoublePoint, VALUE, NSRect, NSRect, double, NSPoint) \
    X(twoRects, VALUE, double, NSRect, NSRect) \
    X(rectAfterDoubles, VALUE, NSPoint, double, double, double, double, double, NSRect) \
    X(pointFromMixed, VALUE, NSPoint, float, int8_t, double) \
    X(range, VALUE, NSRange, NSRange) \
    X(rangesAndScalars, VALUE, NSRange, NSRange, int32_t, double, NSRange) \
    X(intPairAndTriple, VALUE, ACIntPair, ACIntPair, ACIntTriple) \
    X(wordAndPointer, VALUE, ACWordPointer, ACWordPointer, float) \
    X(oneAndThreeDoubles, VALUE, ACOneDouble, ACOneDouble, ACThreeDoubles) \
    X(threeDoublesAndByte, VALUE, ACThreeDoubles, ACThreeDoubles, int8_t) \
    X(setFrame, VOID, void, NSRect) \
    X(floatAndByte, VOID, void, float, int8_t) \
    X(rangeAndDouble, VOID, void, NSRange, double) \
    X(oneShort, VOID, void, int16_t) \
    /* Past the register paths: NSInvocation, the stack, or a clear error. */ \
    X(nineDoubles, VALUE, double, double, double, double, double, double, double, double, double, double) \
    X(twoRectsAndDouble, VALUE, double, NSRect, NSRect, double) \
    X(eightIntegers, VALUE, int64_t, int64_t, int32_t, int64_t, int16_t, int64_t, int8_t, int64_t, uint32_t) \
    X(intAndDouble, VALUE, ACIntDouble, ACIntDouble) \
    X(twoFloatsStruct, VALUE, ACTwoFloats, ACTwoFloats) \
    X(fiveDoubles, VALUE, double, ACFiveDoubles, double)

/* A callee's body: the digest of what it received, and a return value derived from it. */
#define AC_FINISH_VALUE(R) R r_; acSample(@encode(R), &r_, acDigestEnd()); return r_;
#define AC_FINISH_VOID(R) (void)acDigestEnd();
#define AC_BODY(style, R, ...) { acDigestBegin(); AC_DIGEST(__VA_ARGS__) AC_CAT(AC_FINISH_, style)(R) }
/* Runs a call of compiled code and keeps its result's text in `result` ("" for void). */
#define AC_KEEP_VALUE(R, result, call) do { R r_ = call; result = acFormat(@encode(R), &r_); } while (0)
#define AC_KEEP_VOID(R, result, call) do { call; result = strdup(""); } while (0)
#define AC_RETURN_VALUE(call) return call;
#define AC_RETURN_VOID(call) call;

#define AC_FUNCTION(name, style, R, ...) static R function_##name(AC_PARAMS(__VA_ARGS__)) AC_BODY(style, R, __VA_ARGS__)
AC_SHAPES(AC_FUNCTION)

/* The subject class, and one subclass per route a test takes over its methods on. */
@interface ACSubject : NSObject
#define AC_DECLARE(name, style, R, ...) - (R)name AC_KEYWORDS(__VA_ARGS__);
AC_SHAPES(AC_DECLARE)
@end
@implementation ACSubject
#define AC_METHOD(name, style, R, ...) - (R)name AC_KEYWORDS(__VA_ARGS__) AC_BODY(style, R, __VA_ARGS__)
AC_SHAPES(AC_METHOD)
@end
@interface ACForwarded : ACSubject
@end
@implementation ACForwarded
@end
@interface ACClosureRouted : ACSubject
@end
@implementation ACClosureRouted
@end
@interface ACSwizzled : ACSubject
@end
@implementation ACSwizzled
@end

/* What the engine's side saw: the patch handler's and the engine block's digest of their frames. */
static char *handlerDigest;

static void digestFrame(PEFrame *frame, unsigned first) {
    acDigestBegin();
    for (unsigned i = first; i < PESignatureGetArgumentCount(frame->signature); i++)
        acDigestArgument(PETypeGetEncoding(PESignatureGetArgument(frame->signature, i)), frame->arguments[i]);
}

/* A patch: digest of its arguments, then the original implementation called through the engine. */
static void patchHandler(PESlot *slot, PEFrame *frame, uintptr_t token) {
    (void)token;
    digestFrame(frame, 2);
    (void)acDigestEnd();
    free(handlerDigest);
    handlerDigest = acCopyLastDigest();
    PESlotInvokeOriginal(slot, frame);
}

/* An engine block's body: as the compiled block's (digest, then a return value derived from it). */
static void blockHandler(uintptr_t token, PEFrame *frame) {
    (void)token;
    digestFrame(frame, 1);
    unsigned seed = acDigestEnd();
    const PEType *rt = PESignatureGetReturnType(frame->signature);
    if (PETypeGetKind(rt) != PETypeKindVoid) acSample(PETypeGetEncoding(rt), frame->returnValue, seed);
}
static void blockDispose(uintptr_t token) { (void)token; }

/* One shape's expectations: the compiled call's digest and result, and the engine's signatures. */
typedef struct {
    const char *name;
    char *digest, *result;
    const char *returnEncoding;
    const PESignature *function, *method, *block;
    void **values;
    unsigned count;
} ACShape;

static char *joinEncodings(const char *returnEncoding, const char *implicit, const char **encodings, unsigned count) {
    size_t length = strlen(returnEncoding) + strlen(implicit) + 1;
    for (unsigned i = 0; i < count; i++) length += strlen(encodings[i]);
    char *joined = calloc(1, length);
    strcat(joined, returnEncoding);
    strcat(joined, implicit);
    for (unsigned i = 0; i < count; i++) strcat(joined, encodings[i]);
    return joined;
}

static const PESignature *parse(const char *types) {
    const char *error = NULL;
    const PESignature *sig = PESignatureParse(types, &error);
    if (!sig) { fprintf(stderr, "arm64-check: cannot parse %s: %s\n", types, error); abort(); }
    return sig;
}

static bool fits(const PESignature *sig) { return sig->registerOnly || sig->mixedRegisters; }

static char *resultText(const ACShape *shape, const void *storage) {
    return shape->returnEncoding[0] == 'v' ? strdup("") : acFormat(shape->returnEncoding, storage);
}

/* Compares one route's digest and result with the compiled call's. */
static void compare(const ACShape *shape, const char *route, const char *digest, const char *result) {
    char what[160];
    snprintf(what, sizeof what, "%s: %s, arguments", shape->name, route);
    acCheckEqual(what, shape->digest, digest);
    snprintf(what, sizeof what, "%s: %s, result", shape->name, route);
    acCheckEqual(what, shape->result, result);
}

/* A route that may refuse a shape outside the register paths: then only with the iOS message. */
static void refusalOrCompare(const ACShape *shape, const char *route, bool expectedToFit, bool ok,
                             const char *error, const char *digest, const char *result) {
    char what[160];
    snprintf(what, sizeof what, "%s: %s", shape->name, route);
    if (ok) { compare(shape, route, digest, result); return; }
    acCheck(!expectedToFit && error && strstr(error, "needs libffi"), what,
            "refused (%s)%s", error ? error : "no message", expectedToFit ? " though its arguments fit in registers" : "");
}

/* One call by the engine: `implicit` leading arguments (the block; the receiver and selector),
   then the shape's; compared with the compiled call. `mayRefuse`: the route may refuse a shape
   outside the register paths (with the iOS message only); the others must always call. */
typedef bool (*ACEngineCall)(void *target, PEFrame *frame, char **error);
static void engineCall(const ACShape *shape, const char *route, const PESignature *sig, void **implicit, unsigned implicitCount,
                       ACEngineCall call, void *target, bool mayRefuse) {
    unsigned char ret[64] __attribute__((aligned(16)));
    memset(ret, 0, sizeof ret);
    void *arguments[18];
    memcpy(arguments, implicit, implicitCount * sizeof(void *));
    memcpy(arguments + implicitCount, shape->values, shape->count * sizeof(void *));
    PEFrame frame = { sig, arguments, ret };
    char *error = NULL;
    acDigestBegin(); (void)acDigestEnd();
    bool ok = call(target, &frame, &error);
    char *result = ok ? resultText(shape, ret) : NULL;
    char what[160];
    snprintf(what, sizeof what, "%s: %s", shape->name, route);
    if (mayRefuse) refusalOrCompare(shape, route, fits(sig), ok, error, acLastDigest(), result);
    else if (ok) compare(shape, route, acLastDigest(), result);
    else acCheck(false, what, "raised %s", error);
    free(result); free(error);
}

static bool sendFrame(void *unused, PEFrame *frame, char **error) { (void)unused; return PEMessageSend(frame, error); }

static void callFunction(const ACShape *shape, void *function) {
    engineCall(shape, "C function called by the engine", shape->function, NULL, 0, PEInvokeFunction, function, true);
}

static void callBlock(const ACShape *shape, void *block) {
    void *implicit[] = { &block };
    engineCall(shape, "compiled block called by the engine", shape->block, implicit, 1, PEBlockInvoke, block, false);
}

static void sendMessage(const ACShape *shape, id receiver, const char *selector) {
    SEL sel = sel_registerName(selector);
    void *implicit[] = { &receiver, &sel };
    engineCall(shape, "message sent by the engine", shape->method, implicit, 2, sendFrame, NULL, false);
}

static PESlot *patch(Class cls, const char *selector, PERoute route) {
    PESetDefaultRoute(route);
    char *error = NULL;
    PESlot *slot = PESlotInstall(cls, selector, NULL, &error);
    if (!slot) { fprintf(stderr, "arm64-check: cannot patch %s: %s\n", selector, error); abort(); }
    PESlotSetPatch(slot, 1);
    return slot;
}

static char *selectorName(const char *name, unsigned count) {
    char *selector = calloc(1, strlen(name) + count + 1);
    strcpy(selector, name);
    memset(selector + strlen(name), ':', count);
    return selector;
}

/* After a patched call: the patch saw the arguments, the original saw them through the engine,
   and the caller got the original's result. */
static void comparePatched(const ACShape *shape, const char *route, char *result) {
    char what[160];
    snprintf(what, sizeof what, "%s: %s, arguments the patch saw", shape->name, route);
    acCheckEqual(what, shape->digest, handlerDigest);
    compare(shape, route, acLastDigest(), result);
    free(result);
    free(handlerDigest);
    handlerDigest = NULL;
}

#define AC_SHAPE_TEST(name, style, R, ...) \
static void test_##name(unsigned seed) { \
    acTrace(#name); \
    const char *encodings[] = { AC_ENCODINGS(__VA_ARGS__) }; \
    unsigned count = AC_COUNT(__VA_ARGS__); \
    AC_VALUES(__VA_ARGS__) \
    void *values[] = { AC_ADDRESSES(v, __VA_ARGS__) }; \
    ACShape shape = { #name, NULL, NULL, @encode(R), \
        parse(joinEncodings(@encode(R), "", encodings, count)), \
        parse(joinEncodings(@encode(R), "@:", encodings, count)), \
        parse(joinEncodings(@encode(R), "@?", encodings, count)), values, count }; \
    AC_CAT(AC_KEEP_, style)(R, shape.result, function_##name(AC_ARGS(v, __VA_ARGS__))); \
    shape.digest = acCopyLastDigest(); \
    char *result = NULL; \
    callFunction(&shape, (void *)function_##name); \
    R (^compiled)(__VA_ARGS__) = ^R(AC_PARAMS(__VA_ARGS__)) AC_BODY(style, R, __VA_ARGS__); \
    callBlock(&shape, (void *)compiled); \
    char *selector = selectorName(#name, count); \
    ACSubject *subject = [ACSubject new]; \
    sendMessage(&shape, subject, selector); \
    /* An engine block called by compiled code. */ \
    acTrace("engine block"); \
    char *error = NULL; \
    void *engineBlock = PEBlockCreate(shape.block, 1, &error); \
    if (engineBlock) { \
        acDigestBegin(); (void)acDigestEnd(); \
        AC_CAT(AC_KEEP_, style)(R, result, ((R (^)(__VA_ARGS__))engineBlock)(AC_ARGS(v, __VA_ARGS__))); \
        compare(&shape, "engine block called by compiled code", acLastDigest(), result); \
        free(result); \
        PEBlockRelease(engineBlock); \
    } else { \
        refusalOrCompare(&shape, "engine block called by compiled code", fits(shape.block), false, error, NULL, NULL); \
        free(error); error = NULL; \
    } \
    /* Patched methods called by compiled code, on both routes. */ \
    acTrace("patched"); \
    ACSubject *forwarded = [ACForwarded new], *closureRouted = [ACClosureRouted new]; \
    PESlot *slot = patch([ACForwarded class], selector, PERouteForwarding); \
    acCheck(PESlotGetRoute(slot) == PERouteForwarding, #name, "took the closure route when forwarding was asked"); \
    AC_CAT(AC_KEEP_, style)(R, result, [forwarded name AC_SEND(v, __VA_ARGS__)]); \
    comparePatched(&shape, "patched method on the forwarding route", result); \
    slot = patch([ACClosureRouted class], selector, PERouteClosure); \
    AC_CAT(AC_KEEP_, style)(R, result, [closureRouted name AC_SEND(v, __VA_ARGS__)]); \
    comparePatched(&shape, PESlotGetRoute(slot) == PERouteClosure ? "patched method on the closure route (register entry)" \
                   : "patched method on the closure route (forwarded: not register-only)", result); \
    /* A swizzle whose block calls the original natively. */ \
    acTrace("swizzled"); \
    ACSubject *swizzled = [ACSwizzled new]; \
    static char *swizzleDigest; \
    NSError *swizzleError = nil; \
    id<PESwizzleToken> token = [PESwizzle swizzleInstanceMethod:sel_registerName(selector) \
        inClass:[ACSwizzled class] mode:PESwizzleModeAlways key:NULL error:&swizzleError \
        usingBlock:(id)^R(PESwizzleInfo *info, id receiver, AC_PARAMS(__VA_ARGS__)) { \
            acDigestBegin(); AC_DIGEST(__VA_ARGS__) (void)acDigestEnd(); \
            free(swizzleDigest); swizzleDigest = acCopyLastDigest(); \
            R (*original)(id, SEL, __VA_ARGS__) = (R (*)(id, SEL, __VA_ARGS__))info.originalImplementation; \
            AC_CAT(AC_RETURN_, style)(original(receiver, info.selector, AC_ARGS(a, __VA_ARGS__))) \
        }]; \
    if (token) { \
        acDigestBegin(); (void)acDigestEnd(); \
        AC_CAT(AC_KEEP_, style)(R, result, [swizzled name AC_SEND(v, __VA_ARGS__)]); \
        acCheckEqual(#name ": swizzle block called by the engine, arguments", shape.digest, swizzleDigest); \
        compare(&shape, "swizzled method, original called natively", acLastDigest(), result); \
        free(result); \
        [token remove]; \
    } else { \
        refusalOrCompare(&shape, "swizzle", fits(shape.method), false, \
                         [[swizzleError localizedDescription] UTF8String], NULL, NULL); \
    } \
    free(shape.digest); free(shape.result); free(selector); \
}
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-variable"
AC_SHAPES(AC_SHAPE_TEST)
#pragma clang diagnostic pop

void acRunShapeCases(void) {
    PESetPatchHandler(patchHandler);
    PESetBlockHandlers(blockHandler, blockDispose);
    unsigned seed = 1;
#define AC_RUN(name, style, R, ...) test_##name(seed++);
    AC_SHAPES(AC_RUN)
}
