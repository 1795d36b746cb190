/* The floor of the rows "Objective-C calls a JS-patched method" (closure route): what the
   JavaScriptCore C API itself costs for the same call. Per iteration: the same message to a
   subject whose methods are empty closure slots, then one JSObjectCallAsFunction of an empty JS
   function with the receiver and arguments as JS values made once, in a bare JSGlobalContext,
   and the result converted as a native caller needs it. */
#import "PBSubject.h"
#import "PBTimedLoop.h"
#include <JavaScriptCore/JavaScript.h>
#include <string.h>

static volatile int pbFloorIntSink;
static void *volatile pbFloorObjectSink;

static JSGlobalContextRef floorContext;
static JSClassRef receiverClass;            /* the receiver's JS value: private data = the object */
static JSObjectRef floorFunctions[5];       /* indexed by PBCall */
static JSObjectRef floorSetCheck;
static JSObjectRef receiverValue;
static void *receiverObject;
static JSObjectRef rectValue;

static bool floorChecking;
static PBJSFloorCounts floorCounts;

static double numberProperty(JSContextRef ctx, JSObjectRef object, const char *name)
{
    JSStringRef key = JSStringCreateWithUTF8CString(name);
    double value = JSValueToNumber(ctx, JSObjectGetProperty(ctx, object, key, NULL), NULL);
    JSStringRelease(key);
    return value;
}

/* record(call, self, argument): called by the JS functions only while a check is on. */
static JSValueRef record(JSContextRef ctx, JSObjectRef function, JSObjectRef thisObject,
                         size_t argc, const JSValueRef argv[], JSValueRef *exception)
{
    (void)function; (void)thisObject; (void)exception;
    floorCounts.calls++;
    PBCall call = argc > 0 ? (PBCall)JSValueToNumber(ctx, argv[0], NULL) : PBCallEmpty;
    if (argc < 2 || !JSValueIsStrictEqual(ctx, argv[1], receiverValue)) floorCounts.wrongReceiver++;
    if (call == PBCallObjectArgument && (argc < 3 || !JSValueIsStrictEqual(ctx, argv[2], receiverValue)))
        floorCounts.wrongArgument++;
    if (call == PBCallStructArgument) {
        JSObjectRef rect = argc >= 3 && JSValueIsObject(ctx, argv[2]) ? JSValueToObject(ctx, argv[2], NULL) : NULL;
        if (!rect || numberProperty(ctx, rect, "x") != PB_RECT_X || numberProperty(ctx, rect, "y") != PB_RECT_Y
            || numberProperty(ctx, rect, "width") != PB_RECT_WIDTH || numberProperty(ctx, rect, "height") != PB_RECT_HEIGHT)
            floorCounts.wrongArgument++;
    }
    return JSValueMakeUndefined(ctx);
}

/* The functions are empty but for `if (check)`, a closure variable that is false while timing. */
static const char *floorSource =
    "(function (record) {\n"
    "  var check = false;\n"
    "  return [\n"
    "    function (self) { if (check) record(0, self); },\n"
    "    function (self) { if (check) record(1, self); return 7; },\n"
    "    function (self, object) { if (check) record(2, self, object); },\n"
    "    function (self) { if (check) record(3, self); return self; },\n"
    "    function (self, rect) { if (check) record(4, self, rect); },\n"
    "    function (on) { check = on; }\n"
    "  ];\n"
    "})";

static JSValueRef evaluate(const char *source)
{
    JSStringRef script = JSStringCreateWithUTF8CString(source);
    JSValueRef result = JSEvaluateScript(floorContext, script, NULL, NULL, 1, NULL);
    JSStringRelease(script);
    return result;
}

static bool setUp(char **error)
{
    if (floorContext) return true;
    floorContext = JSGlobalContextCreate(NULL);
    JSClassDefinition definition = kJSClassDefinitionEmpty;
    definition.className = "PBReceiver";
    receiverClass = JSClassCreate(&definition);

    JSValueRef factory = evaluate(floorSource);
    JSStringRef name = JSStringCreateWithUTF8CString("record");
    JSValueRef recorder = JSObjectMakeFunctionWithCallback(floorContext, name, record);
    JSStringRelease(name);
    JSValueRef list = factory && JSValueIsObject(floorContext, factory)
        ? JSObjectCallAsFunction(floorContext, JSValueToObject(floorContext, factory, NULL), NULL, 1, &recorder, NULL) : NULL;
    if (!list || !JSValueIsObject(floorContext, list)) {
        if (error) *error = strdup("the floor's JS functions did not evaluate");
        JSGlobalContextRelease(floorContext);
        floorContext = NULL;
        return false;
    }
    JSObjectRef array = JSValueToObject(floorContext, list, NULL);
    for (unsigned i = 0; i < 6; i++) {
        JSObjectRef fn = JSValueToObject(floorContext, JSObjectGetPropertyAtIndex(floorContext, array, i, NULL), NULL);
        JSValueProtect(floorContext, fn);
        if (i < 5) floorFunctions[i] = fn; else floorSetCheck = fn;
    }
    rectValue = JSValueToObject(floorContext, evaluate("({x: 1.5, y: 2.5, width: 3.5, height: 4.5})"), NULL);
    JSValueProtect(floorContext, rectValue);
    if (numberProperty(floorContext, rectValue, "x") != PB_RECT_X || numberProperty(floorContext, rectValue, "height") != PB_RECT_HEIGHT) {
        if (error) *error = strdup("the floor's rect does not hold PB_RECT_*");
        return false;
    }
    return true;
}

static void useReceiver(void *object)
{
    if (receiverObject == object) return;
    if (receiverValue) JSValueUnprotect(floorContext, receiverValue);
    receiverValue = JSObjectMake(floorContext, receiverClass, object);
    JSValueProtect(floorContext, receiverValue);
    receiverObject = object;
}

static void setCheck(bool on)
{
    JSValueRef value = JSValueMakeBoolean(floorContext, on);
    JSObjectCallAsFunction(floorContext, floorSetCheck, NULL, 1, &value, NULL);
    floorChecking = on;
}

void pb_js_floor_check_begin(void)
{
    memset(&floorCounts, 0, sizeof floorCounts);
    if (setUp(NULL)) setCheck(true);
}

PBJSFloorCounts pb_js_floor_check_end(void)
{
    if (floorContext) setCheck(false);
    return floorCounts;
}

static char *copyJSException(JSValueRef exception)
{
    JSStringRef text = JSValueToStringCopy(floorContext, exception, NULL);
    if (!text) return strdup("JS exception");
    size_t size = JSStringGetMaximumUTF8CStringSize(text);
    char *buffer = malloc(size);
    JSStringGetUTF8CString(text, buffer, size);
    JSStringRelease(text);
    return buffer;
}

int64_t pb_time_js_floor(void *slotObject, PBCall call, uint64_t iterations, char **error)
{
    if (call < PBCallEmpty || call > PBCallStructArgument) {
        if (error) *error = strdup("unknown call kind");
        return -1;
    }
    if (!setUp(error)) return -1;
    useReceiver(slotObject);
    id<PBSubject> object = (id<PBSubject>)slotObject;
    JSGlobalContextRef ctx = floorContext;
    JSObjectRef fn = floorFunctions[call];
    JSValueRef args[2] = { receiverValue, call == PBCallStructArgument ? (JSValueRef)rectValue : (JSValueRef)receiverValue };
    JSValueRef exception = NULL;
    uint64_t start = 0, end = 0;
    @try {
        switch (call) {
            case PBCallEmpty:
                PB_TIMED_LOOP({
                    [object empty];
                    JSObjectCallAsFunction(ctx, fn, NULL, 1, args, &exception);
                    if (exception) break;
                });
                break;
            case PBCallConstant:
                PB_TIMED_LOOP({
                    int native = [object constant];
                    JSValueRef result = JSObjectCallAsFunction(ctx, fn, NULL, 1, args, &exception);
                    if (exception) break;
                    pbFloorIntSink = native + (int)JSValueToNumber(ctx, result, NULL);
                });
                break;
            case PBCallObjectArgument:
                PB_TIMED_LOOP({
                    [object takeObject:object];
                    JSObjectCallAsFunction(ctx, fn, NULL, 2, args, &exception);
                    if (exception) break;
                });
                break;
            case PBCallObjectReturn:
                PB_TIMED_LOOP({
                    pbFloorObjectSink = [object object];
                    JSValueRef result = JSObjectCallAsFunction(ctx, fn, NULL, 1, args, &exception);
                    if (exception) break;
                    pbFloorObjectSink = JSObjectGetPrivate(JSValueToObject(ctx, result, NULL));
                });
                break;
            case PBCallStructArgument: {
                NSRect rect = pbLoopRect();
                PB_TIMED_LOOP({
                    [object takeRect:rect];
                    JSObjectCallAsFunction(ctx, fn, NULL, 2, args, &exception);
                    if (exception) break;
                });
                break;
            }
        }
    } @catch (NSException *e) {
        if (error) *error = strdup([[NSString stringWithFormat:@"%@: %@", [e name], [e reason]] UTF8String]);
        return -1;
    }
    if (exception) {
        if (error) *error = copyJSException(exception);
        return -1;
    }
    /* A checked run also checks what the conversions produced: the JS value and the object. */
    if (floorChecking && iterations > 0) {
        if (call == PBCallConstant && pbFloorIntSink != PB_NATIVE_CONSTANT + 7) floorCounts.wrongResult++;
        if (call == PBCallObjectReturn && pbFloorObjectSink != slotObject) floorCounts.wrongResult++;
    }
    return (int64_t)(end - start);
}
