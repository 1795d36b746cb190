/* The Objective-C API driven from Objective-C (PatchEngineObjCTests): C entry points the Swift
   tests call, each doing what an Objective-C app does. */
#ifndef PATCH_ENGINE_OBJC_FIXTURES_H
#define PATCH_ENGINE_OBJC_FIXTURES_H
#include <stdbool.h>
#include <stddef.h>

/* README.md's Objective-C example (ReadmeExample.m): applies and reverts "fix-total.js". */
bool POReadmeApplyUTF8(const char *script);
bool POReadmeRevert(void);
/* -[Cart total] called natively, with a coupon set (NULL: none). */
double POCartTotal(const char *coupon);
/* Evaluates `script` as `name`: true, or false with the NSError written to `out` as
   "domain code description | name line column" (userInfo's values, 0 when absent). */
bool POEvaluateDescribing(const char *script, const char *name, char *out, size_t room);
/* The same for a file and for a revert. */
bool POEvaluateFileDescribing(const char *path, char *out, size_t room);
bool PORevertDescribing(const char *name, char *out, size_t room);
/* Calls evaluate, evaluate-file and revert with nil arguments: false when every one failed, with
   their descriptions on four lines. */
bool PONilArgumentsDescribing(char *out, size_t room);
/* Sets error and log handlers that record into the buffers given (kept by the fixture); clears
   them with NULL. */
void POCaptureHandlers(char *errors, char *logs, size_t room);
/* +[PEPatchEngine revertAll]. */
void PORevertAll(void);
/* The applied names joined by ",". */
void POAppliedNames(char *out, size_t room);
/* Limits through the Objective-C API: sets both, writes what it reads back. */
void POLimitsRoundTrip(double seconds, long long bytes, double *secondsRead, long long *bytesRead);
bool POLimitsEndByException(void);
bool PORequestLimitsEndByWatchdog(void);
/* Starts a PEPatchClient from the fields (NULL leaves one unset): true with events written to
   `out` as "kind: description" lines, or false with the error's description there. */
bool POStartClient(const char *metadataURL, const char *targetsURL, const char *rootPath, const char *stateDirectory,
                   bool allowsInsecureHTTP, char *out, size_t room);
#endif
