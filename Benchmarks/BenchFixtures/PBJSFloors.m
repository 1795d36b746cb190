/* Floors of the JS rows: what JavaScriptCore itself costs for the same calls, through its C API
   in a bare context of its own (no engine, no runtime.js).
   - A JS loop calling a host function whose body is the direct call of the subject method's IMP:
     the least any JS → Objective-C bridge can cost (one host call + the method itself).
   - A JS loop calling a plain JS method and using its result: the least a call of a method
     defined in JS can cost.
   - JS loops calling an Array builtin (indexOf, slice): what the builtin costs unbounded, against
     the engine's bounded one (runtime.js's `walkBounded`). */
#import "PBSubject.h"
#include <JavaScriptCore/JavaScript.h>
#include <objc/runtime.h>

static JSGlobalContextRef floorContext;
static JSObjectRef floorLoops[7];      /* one loop per PBCall, the JS method loop, the builtin loops */
static JSObjectRef floorHosts[4];
static id floorReceiver;
static IMP floorIMPs[4];
static SEL floorSelectors[4];
static JSObjectRef floorResultObject;  /* what the -object host function answers */
static uint64_t floorHostCalls;

static JSValueRef hostEmpty(JSContextRef ctx, JSObjectRef f, JSObjectRef t, size_t argc, const JSValueRef argv[], JSValueRef *e)
{
    ((void (*)(id, SEL))floorIMPs[PBCallEmpty])(floorReceiver, floorSelectors[PBCallEmpty]);
    floorHostCalls++;
    return NULL;   /* undefined */
}

static JSValueRef hostConstant(JSContextRef ctx, JSObjectRef f, JSObjectRef t, size_t argc, const JSValueRef argv[], JSValueRef *e)
{
    int value = ((int (*)(id, SEL))floorIMPs[PBCallConstant])(floorReceiver, floorSelectors[PBCallConstant]);
    floorHostCalls++;
    return JSValueMakeNumber(ctx, value);
}

static JSValueRef hostTakeObject(JSContextRef ctx, JSObjectRef f, JSObjectRef t, size_t argc, const JSValueRef argv[], JSValueRef *e)
{
    /* The argument's private data is the object (as a box's is). */
    id object = argc > 0 && JSValueIsObject(ctx, argv[0]) ? (id)JSObjectGetPrivate((JSObjectRef)argv[0]) : nil;
    ((void (*)(id, SEL, id))floorIMPs[PBCallObjectArgument])(floorReceiver, floorSelectors[PBCallObjectArgument], object);
    floorHostCalls++;
    return NULL;
}

static JSValueRef hostObject(JSContextRef ctx, JSObjectRef f, JSObjectRef t, size_t argc, const JSValueRef argv[], JSValueRef *e)
{
    id result = ((id (*)(id, SEL))floorIMPs[PBCallObjectReturn])(floorReceiver, floorSelectors[PBCallObjectReturn]);
    floorHostCalls++;
    return result ? floorResultObject : JSValueMakeBoolean(ctx, false);
}

static const char *floorScript =
    "[function (n, f, o) { for (var i = 0; i < n; i++) { f(); } return n; },\n"
    " function (n, f, o) { var sum = 0; for (var i = 0; i < n; i++) { sum += f(); } return sum; },\n"
    " function (n, f, o) { for (var i = 0; i < n; i++) { f(o); } return n; },\n"
    " function (n, f, o) { var last = null; for (var i = 0; i < n; i++) { last = f(); } return last ? n : -1; },\n"
    " (function () {\n"
    "   var target = { value: function () { return 1; } };\n"
    "   return function (n) { var o = target, sum = 0; for (var i = 0; i < n; i++) { sum += o.value(); } return sum; };\n"
    " })(),\n"
    " function (n) { var a = [0, 1, 2, 3, 4, 5, 6, 7], sum = 0; for (var i = 0; i < n; i++) { sum += a.indexOf(i & 7) >= 0 ? 1 : 0; } return sum; },\n"
    " function (n) { var a = [0, 1, 2, 3, 4, 5, 6, 7], sum = 0; for (var i = 0; i < n; i++) { sum += a.slice(7).length; } return sum; }]";

static bool floorsReady(void *receiver, char **error)
{
    if (floorContext) return true;
    floorReceiver = (id)receiver;
    static const char *names[4] = { "empty", "constant", "takeObject:", "object" };
    for (int i = 0; i < 4; i++) {
        floorSelectors[i] = sel_registerName(names[i]);
        floorIMPs[i] = class_getMethodImplementation(object_getClass(floorReceiver), floorSelectors[i]);
        if (!floorIMPs[i]) { if (error) *error = strdup("the floor's receiver lacks a subject method"); return false; }
    }
    JSGlobalContextRef ctx = JSGlobalContextCreate(NULL);
    JSStringRef source = JSStringCreateWithUTF8CString(floorScript);
    JSValueRef exception = NULL;
    JSValueRef loops = JSEvaluateScript(ctx, source, NULL, NULL, 1, &exception);
    JSStringRelease(source);
    if (exception || !loops) { if (error) *error = strdup("the floor loops did not compile"); return false; }
    JSObjectRef array = JSValueToObject(ctx, loops, NULL);
    for (unsigned i = 0; i < 7; i++) {
        floorLoops[i] = JSValueToObject(ctx, JSObjectGetPropertyAtIndex(ctx, array, i, NULL), NULL);
        JSValueProtect(ctx, floorLoops[i]);
    }
    JSObjectCallAsFunctionCallback hosts[4] = { hostEmpty, hostConstant, hostTakeObject, hostObject };
    for (int i = 0; i < 4; i++) {
        floorHosts[i] = JSObjectMakeFunctionWithCallback(ctx, NULL, hosts[i]);
        JSValueProtect(ctx, floorHosts[i]);
    }
    /* A box-like object: a class with private data, as the engine's boxes are. */
    JSClassDefinition definition = kJSClassDefinitionEmpty;
    definition.className = "PBFloorBox";
    JSClassRef boxClass = JSClassCreate(&definition);
    floorResultObject = JSObjectMake(ctx, boxClass, floorReceiver);
    JSValueProtect(ctx, floorResultObject);
    floorContext = ctx;
    return true;
}

int64_t pb_js_host_floor(void *receiver, PBCall call, uint64_t iterations, double *result, char **error)
{
    if (!floorsReady(receiver, error)) return -1;
    if ((unsigned)call > PBCallObjectReturn) { if (error) *error = strdup("unknown call kind"); return -1; }
    JSContextRef ctx = floorContext;
    JSValueRef args[3] = { JSValueMakeNumber(ctx, (double)iterations), floorHosts[call], floorResultObject };
    JSValueRef exception = NULL;
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    uint64_t start = pb_now_ns();
    JSValueRef value = JSObjectCallAsFunction(ctx, floorLoops[call], NULL, 3, args, &exception);
    uint64_t end = pb_now_ns();
    [pool release];
    if (exception || !value) { if (error) *error = strdup("the floor loop threw"); return -1; }
    if (result) *result = JSValueToNumber(ctx, value, NULL);
    return (int64_t)(end - start);
}

int64_t pb_js_method_floor(uint64_t iterations, double *result, char **error)
{
    if (!floorContext) { if (error) *error = strdup("pb_js_host_floor sets the floor context up first"); return -1; }
    JSContextRef ctx = floorContext;
    JSValueRef args[1] = { JSValueMakeNumber(ctx, (double)iterations) };
    JSValueRef exception = NULL;
    uint64_t start = pb_now_ns();
    JSValueRef value = JSObjectCallAsFunction(ctx, floorLoops[4], NULL, 1, args, &exception);
    uint64_t end = pb_now_ns();
    if (exception || !value) { if (error) *error = strdup("the JS method floor loop threw"); return -1; }
    if (result) *result = JSValueToNumber(ctx, value, NULL);
    return (int64_t)(end - start);
}

int64_t pb_js_builtin_floor(unsigned which, uint64_t iterations, double *result, char **error)
{
    if (!floorContext) { if (error) *error = strdup("pb_js_host_floor sets the floor context up first"); return -1; }
    if (which > 1) { if (error) *error = strdup("unknown builtin loop"); return -1; }
    JSContextRef ctx = floorContext;
    JSValueRef args[1] = { JSValueMakeNumber(ctx, (double)iterations) };
    JSValueRef exception = NULL;
    uint64_t start = pb_now_ns();
    JSValueRef value = JSObjectCallAsFunction(ctx, floorLoops[5 + which], NULL, 1, args, &exception);
    uint64_t end = pb_now_ns();
    if (exception || !value) { if (error) *error = strdup("the builtin floor loop threw"); return -1; }
    if (result) *result = JSValueToNumber(ctx, value, NULL);
    return (int64_t)(end - start);
}

uint64_t pb_js_host_floor_calls(void) { return floorHostCalls; }
