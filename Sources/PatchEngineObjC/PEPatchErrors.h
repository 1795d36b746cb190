/* NSErrors from the bridge's failures (internal). */
#import "PEPatchEngine.h"

/* An NSError of PEPatchErrorDomain for a failure the bridge wrote: kind (PatchError.Kind's raw
   value, or "client"), message, script name and line and column (0: unknown). Frees nothing. */
NSError *PEPatchErrorMake(const char *kind, const char *message, const char *scriptName, long line, long column);
/* The same from the strings the bridge malloc'd, which it frees. */
NSError *PEPatchErrorTake(char *kind, char *message, char *scriptName, long line, long column);
