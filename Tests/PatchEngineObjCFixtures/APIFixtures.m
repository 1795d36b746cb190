/* The rest of the Objective-C API as an app calls it (PatchEngineObjCFixtures.h). */
#import "PatchEngineObjCFixtures.h"
#import "PEPatchEngine.h"
#include <stdio.h>
#include <string.h>

static void describe(NSError *error, char *out, size_t room) {
    NSDictionary *info = [error userInfo];
    snprintf(out, room, "%s %ld %s | %s %ld %ld", [[error domain] UTF8String], (long)[error code],
             [[error localizedDescription] UTF8String],
             [[info objectForKey:PEPatchErrorScriptNameKey] UTF8String] ?: "-",
             [[info objectForKey:PEPatchErrorLineKey] longValue], [[info objectForKey:PEPatchErrorColumnKey] longValue]);
}

/* Runs one API call in a pool: true, or false with its NSError described into `out`. */
static bool describing(BOOL (^call)(NSError **), char *out, size_t room) {
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    NSError *error = nil;
    BOOL ok = call(&error);
    if (!ok) describe(error, out, room);
    [pool release];
    return ok;
}

bool POEvaluateDescribing(const char *script, const char *name, char *out, size_t room) {
    return describing(^BOOL(NSError **error) {
        return [PEPatchEngine evaluateScript:[NSString stringWithUTF8String:script] name:[NSString stringWithUTF8String:name] error:error];
    }, out, room);
}

bool POEvaluateFileDescribing(const char *path, char *out, size_t room) {
    return describing(^BOOL(NSError **error) {
        return [PEPatchEngine evaluateScriptWithPath:[NSString stringWithUTF8String:path] error:error];
    }, out, room);
}

bool PORevertDescribing(const char *name, char *out, size_t room) {
    return describing(^BOOL(NSError **error) {
        return [PEPatchEngine revertScriptNamed:[NSString stringWithUTF8String:name] error:error];
    }, out, room);
}

bool PONilArgumentsDescribing(char *out, size_t room) {
    char script[256] = "", name[256] = "", path[256] = "", revert[256] = "";
    bool any = describing(^BOOL(NSError **error) { return [PEPatchEngine evaluateScript:nil name:@"nil.js" error:error]; }, script, sizeof script)
        | describing(^BOOL(NSError **error) { return [PEPatchEngine evaluateScript:@"1" name:nil error:error]; }, name, sizeof name)
        | describing(^BOOL(NSError **error) { return [PEPatchEngine evaluateScriptWithPath:nil error:error]; }, path, sizeof path)
        | describing(^BOOL(NSError **error) { return [PEPatchEngine revertScriptNamed:nil error:error]; }, revert, sizeof revert);
    snprintf(out, room, "%s\n%s\n%s\n%s", script, name, path, revert);
    return any;
}

static void append(char *buffer, size_t room, NSString *line) {
    size_t used = strlen(buffer);
    if (used + 1 < room) snprintf(buffer + used, room - used, "%s\n", [line UTF8String]);
}

void POCaptureHandlers(char *errors, char *logs, size_t room) {
    if (!errors) { [PEPatchEngine setErrorHandler:nil]; [PEPatchEngine setLogHandler:nil]; return; }
    [PEPatchEngine setErrorHandler:^(NSError *error) {
        append(errors, room, [NSString stringWithFormat:@"%ld %@", (long)[error code], [error localizedDescription]]);
    }];
    [PEPatchEngine setLogHandler:^(NSString *line) { append(logs, room, line); }];
}

void PORevertAll(void) { [PEPatchEngine revertAll]; }

void POAppliedNames(char *out, size_t room) {
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    snprintf(out, room, "%s", [[[PEPatchEngine appliedScriptNames] componentsJoinedByString:@","] UTF8String]);
    [pool release];
}

void POLimitsRoundTrip(double seconds, long long bytes, double *secondsRead, long long *bytesRead) {
    [PEPatchEngine setExecutionTimeLimit:seconds];
    [PEPatchEngine setHeapGrowthLimit:bytes];
    *secondsRead = [PEPatchEngine executionTimeLimit];
    *bytesRead = [PEPatchEngine heapGrowthLimit];
}

bool POLimitsEndByException(void) { return [PEPatchEngine limitsEndByException]; }
bool PORequestLimitsEndByWatchdog(void) { return [PEPatchEngine requestLimitsEndByWatchdog]; }

bool POStartClient(const char *metadataURL, const char *targetsURL, const char *rootPath, const char *stateDirectory,
                   bool allowsInsecureHTTP, char *out, size_t room) {
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    out[0] = 0;
    PEPatchClientConfiguration *configuration = [[PEPatchClientConfiguration new] autorelease];
    if (metadataURL) configuration.metadataURL = [NSURL URLWithString:[NSString stringWithUTF8String:metadataURL]];
    if (targetsURL) configuration.targetsURL = [NSURL URLWithString:[NSString stringWithUTF8String:targetsURL]];
    if (rootPath) configuration.bundledRoot = [NSData dataWithContentsOfFile:[NSString stringWithUTF8String:rootPath]];
    configuration.appID = @"com.example.shop";
    configuration.appVersion = @"1.0.0";
    configuration.channel = @"production";
    configuration.deviceID = @"device-1";
    if (stateDirectory) configuration.stateDirectory = [NSString stringWithUTF8String:stateDirectory];
    configuration.allowsInsecureHTTP = allowsInsecureHTTP;
    configuration.updateDeadline = 2;
    NSError *error = nil;
    PEPatchClient *client = [PEPatchClient startWithConfiguration:configuration eventHandler:^(NSString *kind, NSString *description) {
        append(out, room, [NSString stringWithFormat:@"%@: %@", kind, description]);
    } error:&error];
    if (client) [client update];
    else snprintf(out, room, "%s", [[error localizedDescription] UTF8String]);
    [pool release];
    return client != nil;
}
