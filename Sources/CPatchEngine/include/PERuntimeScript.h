/* The engine's scripts (runtime.js, direct.js and jspatch.js in Sources/CPatchEngine/Scripts, the
   files people edit) compiled into the library, so the engine starts without a resource bundle:
   Foundation's Bundle lookup and the file read cost about 1 ms of a 4.6 ms engine start on Linux,
   and an app carries no bundle for them. */
#ifndef PE_RUNTIME_SCRIPT_H
#define PE_RUNTIME_SCRIPT_H

/* runtime.js as a NUL-terminated UTF-8 string. */
const char *PERuntimeScriptSource(void);
/* direct.js (calls of JS-defined methods from JS, loaded on first use), the same way. */
const char *PEDirectCallsScriptSource(void);
/* jspatch.js (JSPatch's engine object and extensions, loaded on first use), the same way. */
const char *PEJSPatchScriptSource(void);
#endif
