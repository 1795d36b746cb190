/* PEPatchEngine over the Swift engine's C entry points (PEBridge.h). */
#import "PEPatchEngine.h"
#import "PEPatchErrors.h"
#include "PEBridge.h"
#include <Block.h>
#include <pthread.h>
#include <stdlib.h>

/* The handler blocks (copies), swapped under a lock; a callback runs its own copy, so a handler
   replaced meanwhile is released only after the call. */
static pthread_mutex_t handlerLock = PTHREAD_MUTEX_INITIALIZER;
static void (^errorHandler)(NSError *);
static void (^logHandler)(NSString *);

static void *copyUnderLock(void **slot) {
    pthread_mutex_lock(&handlerLock);
    void *copy = *slot ? (void *)Block_copy(*slot) : NULL;
    pthread_mutex_unlock(&handlerLock);
    return copy;
}

static void replaceUnderLock(void **slot, const void *handler) {
    void *copy = handler ? (void *)Block_copy(handler) : NULL;
    pthread_mutex_lock(&handlerLock);
    void *old = *slot;
    *slot = copy;
    pthread_mutex_unlock(&handlerLock);
    if (old) Block_release(old);
}

static void runErrorHandler(void *context, const char *kind, const char *message, const char *scriptName, long line, long column) {
    (void)context;
    void (^handler)(NSError *) = copyUnderLock((void **)&errorHandler);
    if (!handler) return;
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    handler(PEPatchErrorMake(kind, message, scriptName, line, column));
    [pool release];
    Block_release(handler);
}

static void runLogHandler(void *context, const char *line) {
    (void)context;
    void (^handler)(NSString *) = copyUnderLock((void **)&logHandler);
    if (!handler) return;
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    handler([NSString stringWithUTF8String:line]);
    [pool release];
    Block_release(handler);
}

/* The UTF-8 of an argument, or NULL when it is nil (or a string without a UTF-8 form): then
   `*error` says which argument, and the call returns NO. */
static const char *argument(NSString *value, const char *what, NSError **error) {
    const char *text = [value isKindOfClass:[NSString class]] ? [value UTF8String] : NULL;
    if (!text && error) *error = PEPatchErrorMake("evaluation", [[NSString stringWithFormat:@"%s is not a string", what] UTF8String], NULL, 0, 0);
    return text;
}

/* Runs a bridge call that reports a failure; NO with *error set from it. */
#define PE_BRIDGE_CALL(errorOut, call) ({ \
    char *kind = NULL, *message = NULL, *scriptName = NULL; long line = 0, column = 0; \
    BOOL ok = (call); \
    if (!ok) { NSError *made = PEPatchErrorTake(kind, message, scriptName, line, column); if (errorOut) *(errorOut) = made; } \
    ok; })

@implementation PEPatchEngine

+ (void)startEngine { PEBridgeStart(); }

+ (BOOL)evaluateScript:(NSString *)script name:(NSString *)name error:(NSError **)error {
    const char *source = argument(script, "the script", error), *patchName = source ? argument(name, "the name", error) : NULL;
    return patchName && PE_BRIDGE_CALL(error, PEBridgeEvaluate(source, patchName, &kind, &message, &scriptName, &line, &column));
}

+ (BOOL)evaluateScript:(NSString *)script error:(NSError **)error {
    return [self evaluateScript:script name:@"main.js" error:error];
}

+ (BOOL)evaluateScriptWithPath:(NSString *)path error:(NSError **)error {
    const char *file = argument(path, "the path", error);
    return file && PE_BRIDGE_CALL(error, PEBridgeEvaluateFile(file, &kind, &message, &scriptName, &line, &column));
}

+ (BOOL)revertScriptNamed:(NSString *)name error:(NSError **)error {
    const char *patchName = argument(name, "the name", error);
    return patchName && PE_BRIDGE_CALL(error, PEBridgeRevert(patchName, &kind, &message, &scriptName, &line, &column));
}

+ (void)revertAll { PEBridgeRevertAll(); }

+ (NSArray *)appliedScriptNames {
    char *joined = PEBridgeCopyAppliedNames();
    NSString *text = [NSString stringWithUTF8String:joined ? joined : ""];
    free(joined);
    return [text length] ? [text componentsSeparatedByString:@"\n"] : [NSArray array];
}

+ (void)setErrorHandler:(void (^)(NSError *))handler {
    replaceUnderLock((void **)&errorHandler, handler);
    PEBridgeSetErrorHandler(handler ? runErrorHandler : NULL, NULL);
}

+ (void)setLogHandler:(void (^)(NSString *))handler {
    replaceUnderLock((void **)&logHandler, handler);
    PEBridgeSetLogHandler(handler ? runLogHandler : NULL, NULL);
}

+ (NSTimeInterval)executionTimeLimit { double seconds = PEBridgeExecutionTimeLimit(); return seconds < 0 ? 0 : seconds; }
+ (void)setExecutionTimeLimit:(NSTimeInterval)seconds { PEBridgeSetExecutionTimeLimit(seconds > 0 ? seconds : -1); }
+ (long long)heapGrowthLimit { int64_t bytes = PEBridgeHeapGrowthLimit(); return bytes < 0 ? 0 : bytes; }
+ (void)setHeapGrowthLimit:(long long)bytes { PEBridgeSetHeapGrowthLimit(bytes > 0 ? bytes : -1); }
+ (BOOL)isExecutionTimeLimitAvailable { return PEBridgeIsExecutionTimeLimitAvailable(); }
+ (BOOL)limitsEndByException { return PEBridgeLimitsEndByException(); }
+ (BOOL)requestLimitsEndByWatchdog { return PEBridgeRequestLimitsEndByWatchdog(); }

@end
