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

// MARK: Amortising JavaScriptCore's API lock, and weak object maps (platform difference: SPI)
//
// Every C API call takes and releases the VM's API lock unless the calling thread holds it
// already; a lock and release costs ≈ 35 ns on the CI machine kind, more than most of the calls it
// guards. JSLock / JSUnlock (WebKit's JSLockRefPrivate.h: "allows holding the lock across multiple
// interactions to amortize the cost"; recursive) hold it across several calls. JSWeakObjectMap*
// (JSWeakObjectMapRefPrivate.h) map a pointer to an object without keeping the object alive; an
// entry reads as NULL once its object has been collected. WebKitGTK exports both without installing
// their headers; Apple's JavaScriptCore.framework has them as SPI. Looked up at run time like the
// time limit: NULL where a JavaScriptCore lacks them, and the engine then does without (each call
// takes the lock itself; every object crossing into JS gets a new box). Signatures as in WebKit.

typedef void (*PEJSLockFunction)(JSContextRef ctx);

typedef struct OpaqueJSWeakObjectMap *PEJSWeakObjectMapRef;
typedef void (*PEJSWeakMapDestroyedCallback)(PEJSWeakObjectMapRef map, void *data);
typedef PEJSWeakObjectMapRef (*PEJSWeakObjectMapCreateFunction)(JSContextRef ctx, void *data,
                                                                PEJSWeakMapDestroyedCallback destructor);
typedef void (*PEJSWeakObjectMapSetFunction)(JSContextRef ctx, PEJSWeakObjectMapRef map, void *key, JSObjectRef object);
typedef JSObjectRef (*PEJSWeakObjectMapGetFunction)(JSContextRef ctx, PEJSWeakObjectMapRef map, void *key);

/// NULL when this JavaScriptCore does not export JSLock / JSUnlock.
static inline PEJSLockFunction PEJSLookUpLock(void) { return (PEJSLockFunction)PEJSLookUpSymbol("JSLock"); }
static inline PEJSLockFunction PEJSLookUpUnlock(void) { return (PEJSLockFunction)PEJSLookUpSymbol("JSUnlock"); }

/// NULL when this JavaScriptCore does not export the weak object map functions.
static inline PEJSWeakObjectMapCreateFunction PEJSLookUpWeakObjectMapCreate(void)
{
    return (PEJSWeakObjectMapCreateFunction)PEJSLookUpSymbol("JSWeakObjectMapCreate");
}
static inline PEJSWeakObjectMapSetFunction PEJSLookUpWeakObjectMapSet(void)
{
    return (PEJSWeakObjectMapSetFunction)PEJSLookUpSymbol("JSWeakObjectMapSet");
}
static inline PEJSWeakObjectMapGetFunction PEJSLookUpWeakObjectMapGet(void)
{
    return (PEJSWeakObjectMapGetFunction)PEJSLookUpSymbol("JSWeakObjectMapGet");
}
