/* Variadic methods sent by the engine (PEMessageSendVariadic without libffi: registers, then
   stack words), compared with the same message compiled: objects (what scripts pass), and the
   words and doubles the runtime core also takes, up to and past the registers. Linux arm64 passes
   variadic arguments as if named; Apple's arm64 puts every one on the stack, which this run cannot
   execute (docs/platform-notes.md). */
#import "Check.h"
#include "PEInternal.h"
#include "PatchRuntime.h"
#include <stdarg.h>
#include <string.h>

@interface ACVariadic : NSObject
- (NSString *)digestOf:(const char *)types, ...;
@end
@implementation ACVariadic
/* One character a variadic argument: i (int), q (long long), d (double), @ (object). */
- (NSString *)digestOf:(const char *)types, ... {
    va_list list;
    va_start(list, types);
    acDigestBegin();
    for (const char *t = types; *t; t++) {
        switch (*t) {
            case 'i': { int v = va_arg(list, int); acDigestArgument("i", &v); break; }
            case 'q': { long long v = va_arg(list, long long); acDigestArgument("q", &v); break; }
            case 'd': { double v = va_arg(list, double); acDigestArgument("d", &v); break; }
            case '@': { id v = va_arg(list, id); acDigestArgument("@", &v); break; }
        }
    }
    va_end(list);
    (void)acDigestEnd();
    return [NSString stringWithUTF8String:acLastDigest()];
}
@end

/* Sends digestOf: with the given variadic types through the engine; the result's text, or NULL
   with *error. */
static char *engineSend(id receiver, SEL sel, const char *types, void **variadic, char **error) {
    size_t length = strlen(types);
    char *encoding = malloc(length + 8);
    snprintf(encoding, length + 8, "@@:*%s", types);
    const char *parseError = NULL;
    const PESignature *sig = PESignatureParse(encoding, &parseError);
    free(encoding);
    void *arguments[40] = { &receiver, &sel, &types };
    for (size_t i = 0; i < length; i++) arguments[3 + i] = variadic[i];
    id result = nil;
    PEFrame frame = { sig, arguments, &result };
    if (!PEMessageSendVariadic(&frame, 3, error)) return NULL;
    return strdup([[result description] UTF8String]);
}

static void objectsPastTheRegisters(ACVariadic *subject, SEL sel) {
    id o[12];
    void *slots[12];
    for (int i = 0; i < 12; i++) { acSample("@", &o[i], 900 + i); slots[i] = &o[i]; }
    NSString *three = [subject digestOf:"@@@", o[0], o[1], o[2]];
    NSString *twelve = [subject digestOf:"@@@@@@@@@@@@", o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9], o[10], o[11]];
    char *error = NULL;
    char *got = engineSend(subject, sel, "@@@", slots, &error);
    acCheckEqual("variadic: 3 objects", [three UTF8String], got ? got : error);
    free(got); free(error); error = NULL;
    got = engineSend(subject, sel, "@@@@@@@@@@@@", slots, &error);
    acCheckEqual("variadic: 12 objects (past the registers: the stack)", [twelve UTF8String], got ? got : error);
    free(got); free(error);
}

static void wordsAndDoubles(ACVariadic *subject, SEL sel) {
    long long q[6]; double d[8]; int i32[2];
    for (int k = 0; k < 6; k++) acSample("q", &q[k], 70 + k);
    for (int k = 0; k < 8; k++) acSample("d", &d[k], 80 + k);
    for (int k = 0; k < 2; k++) acSample("i", &i32[k], 90 + k);
    NSString *mixed = [subject digestOf:"qdiqdqdidqdq", q[0], d[0], i32[0], q[1], d[1], q[2], d[2], i32[1], d[3], q[3], d[4], q[4]];
    void *slots[] = { &q[0], &d[0], &i32[0], &q[1], &d[1], &q[2], &d[2], &i32[1], &d[3], &q[3], &d[4], &q[4] };
    char *error = NULL;
    char *got = engineSend(subject, sel, "qdiqdqdidqdq", slots, &error);
    acCheckEqual("variadic: words, ints and doubles interleaved", [mixed UTF8String], got ? got : error);
    free(got); free(error); error = NULL;
    NSString *eight = [subject digestOf:"dddddddd", d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]];
    void *doubles[] = { &d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &d[6], &d[7], &d[0] };
    got = engineSend(subject, sel, "dddddddd", doubles, &error);
    acCheckEqual("variadic: 8 doubles", [eight UTF8String], got ? got : error);
    free(got); free(error); error = NULL;
    /* A ninth double has no register left: refused with the message, nothing called. */
    acDigestBegin(); (void)acDigestEnd();
    got = engineSend(subject, sel, "ddddddddd", doubles, &error);
    acCheck(!got && error && strstr(error, "needs libffi") && acLastDigest()[0] == 0, "variadic: 9 doubles refused",
            "got [%s], error [%s]", got ? got : "", error ? error : "");
    free(got); free(error);
}

/* Foundation's own variadic methods, as scripts call them. */
static void foundationVariadics(void) {
    id o[10];
    void *slots[12];
    for (int i = 0; i < 10; i++) { acSample("@", &o[i], 500 + i); slots[i] = &o[i]; }
    id terminator = nil;
    slots[10] = &terminator;
    NSArray *compiled = [NSArray arrayWithObjects:o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9], nil];
    Class arrayClass = [NSArray class];
    SEL sel = @selector(arrayWithObjects:);
    void *arguments[14] = { &arrayClass, &sel };
    for (int i = 0; i < 11; i++) arguments[2 + i] = slots[i];
    const char *error = NULL;
    id result = nil;
    PEFrame frame = { PESignatureParse("@#:@@@@@@@@@@@", &error), arguments, &result };
    char *sendError = NULL;
    bool ok = PEMessageSendVariadic(&frame, 3, &sendError);
    acCheck(ok && [compiled isEqual:result], "variadic: +[NSArray arrayWithObjects:] with 10 objects and nil",
            "got %s (%s)", result ? [[result description] UTF8String] : "nil", sendError ? sendError : "sent");
    free(sendError);
    NSString *format = @"%@|%@|%@|%@|%@|%@|%@";
    NSString *formatted = [NSString stringWithFormat:format, o[0], o[1], o[2], o[3], o[4], o[5], o[6]];
    Class stringClass = [NSString class];
    SEL formatSel = @selector(stringWithFormat:);
    void *formatArguments[10] = { &stringClass, &formatSel, &format };
    for (int i = 0; i < 7; i++) formatArguments[3 + i] = slots[i];
    result = nil;
    PEFrame formatFrame = { PESignatureParse("@#:@@@@@@@@", &error), formatArguments, &result };
    ok = PEMessageSendVariadic(&formatFrame, 3, &sendError);
    acCheck(ok && [formatted isEqual:result], "variadic: +[NSString stringWithFormat:] with 7 objects",
            "got %s (%s)", result ? [[result description] UTF8String] : "nil", sendError ? sendError : "sent");
    free(sendError);
}

void acRunVariadicCases(void) {
    acTrace("variadic");
    ACVariadic *subject = [ACVariadic new];
    SEL sel = @selector(digestOf:);
    objectsPastTheRegisters(subject, sel);
    wordsAndDoubles(subject, sel);
    foundationVariadics();
}
