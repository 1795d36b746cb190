// The JavaScriptCore C API: WebKitGTK's javascriptcoregtk-4.1 on Linux,
// the system JavaScriptCore.framework on Apple platforms. Same header path, same API.
#include <JavaScriptCore/JavaScript.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>

// MARK: Execution time limit (platform difference: where the functions come from)
//
// JSContextGroupSetExecutionTimeLimit / JSContextGroupClearExecutionTimeLimit are declared only in
// JSContextRefPrivate.h. WebKitGTK exports both from libjavascriptcoregtk-4.1 without installing
// that header; on Apple platforms they are SPI of JavaScriptCore.framework. So neither platform
// gets a prototype from a public header, and both are looked up here, at run time, in the
// process's global symbol scope: when a JavaScriptCore lacks them the lookup gives NULL and the
// engine reports the limit as unavailable (PatchEngine.isExecutionTimeLimitAvailable) instead of
// pretending to enforce it. Signatures as in WebKit's JSContextRefPrivate.h.

/// Called on the thread running JS once the limit has passed; returning true terminates the script.
typedef bool (*PEJSShouldTerminateCallback)(JSContextRef ctx, void *context);
typedef void (*PEJSSetExecutionTimeLimitFunction)(JSContextGroupRef group, double limit,
                                                  PEJSShouldTerminateCallback callback, void *context);
typedef void (*PEJSClearExecutionTimeLimitFunction)(JSContextGroupRef group);

static inline void *PEJSLookUpSymbol(const char *name)
{
    void *process = dlopen(NULL, RTLD_NOW);   // the global symbol scope, on both platforms
    void *symbol = process ? dlsym(process, name) : NULL;
    return symbol;
}

/// NULL when this JavaScriptCore does not export the function.
static inline PEJSSetExecutionTimeLimitFunction PEJSLookUpSetExecutionTimeLimit(void)
{
    return (PEJSSetExecutionTimeLimitFunction)PEJSLookUpSymbol("JSContextGroupSetExecutionTimeLimit");
}

/// NULL when this JavaScriptCore does not export the function.
static inline PEJSClearExecutionTimeLimitFunction PEJSLookUpClearExecutionTimeLimit(void)
{
    return (PEJSClearExecutionTimeLimitFunction)PEJSLookUpSymbol("JSContextGroupClearExecutionTimeLimit");
}
