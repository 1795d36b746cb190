/* runtime.js (Sources/PatchEngine/Resources/runtime.js, the file people edit) compiled into the
   library, so the engine starts without looking up its resource bundle: Foundation's Bundle
   lookup and the file read cost about 1 ms of a 4.6 ms engine start on Linux. */
#ifndef PE_RUNTIME_SCRIPT_H
#define PE_RUNTIME_SCRIPT_H

/* runtime.js as a NUL-terminated UTF-8 string, or NULL when this compiler cannot embed files
   (PE_EMBEDS_RUNTIME_SCRIPT in PEPlatform.h); the engine then reads the bundled resource. */
const char *PERuntimeScriptSource(void);
/* direct.js (calls of JS-defined methods from JS, loaded on first use), the same way. */
const char *PEDirectCallsScriptSource(void);
/* jspatch.js (JSPatch's engine object and extensions, loaded on first use), the same way. */
const char *PEJSPatchScriptSource(void);
#endif
