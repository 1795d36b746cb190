/* NSErrors of PEPatchErrorDomain (PEPatchErrors.h). */
#import "PEPatchErrors.h"
#include <stdlib.h>
#include <string.h>

NSString *const PEPatchErrorDomain = @"PEPatchErrorDomain";
NSString *const PEPatchErrorScriptNameKey = @"PEPatchErrorScriptName";
NSString *const PEPatchErrorLineKey = @"PEPatchErrorLine";
NSString *const PEPatchErrorColumnKey = @"PEPatchErrorColumn";

static PEPatchErrorCode codeForKind(const char *kind) {
    static const struct { const char *kind; PEPatchErrorCode code; } codes[] = {
        { "syntax", PEPatchErrorSyntax }, { "evaluation", PEPatchErrorEvaluation }, { "runtime", PEPatchErrorRuntime },
        { "notApplied", PEPatchErrorNotApplied }, { "timeout", PEPatchErrorTimeout }, { "heapGrowth", PEPatchErrorHeapGrowth },
        { "client", PEPatchErrorClient },
    };
    for (size_t i = 0; kind && i < sizeof codes / sizeof codes[0]; i++)
        if (strcmp(codes[i].kind, kind) == 0) return codes[i].code;
    return PEPatchErrorEvaluation;
}

NSError *PEPatchErrorMake(const char *kind, const char *message, const char *scriptName, long line, long column) {
    NSString *name = scriptName ? [NSString stringWithUTF8String:scriptName] : nil;
    NSString *text = [NSString stringWithUTF8String:message ? message : "unknown error"];
    NSMutableString *description = [NSMutableString string];
    if (name) {
        [description appendString:name];
        if (line > 0) [description appendFormat:@":%ld", line];
        if (column > 0) [description appendFormat:@":%ld", column];
        [description appendString:@": "];
    }
    [description appendFormat:@"%s error: %@", kind ? kind : "unknown", text];
    NSMutableDictionary *info = [NSMutableDictionary dictionaryWithObject:description forKey:NSLocalizedDescriptionKey];
    if (name) [info setObject:name forKey:PEPatchErrorScriptNameKey];
    if (line > 0) [info setObject:[NSNumber numberWithLong:line] forKey:PEPatchErrorLineKey];
    if (column > 0) [info setObject:[NSNumber numberWithLong:column] forKey:PEPatchErrorColumnKey];
    return [NSError errorWithDomain:PEPatchErrorDomain code:codeForKind(kind) userInfo:info];
}

NSError *PEPatchErrorTake(char *kind, char *message, char *scriptName, long line, long column) {
    NSError *error = PEPatchErrorMake(kind, message, scriptName, line, column);
    free(kind); free(message); free(scriptName);
    return error;
}
