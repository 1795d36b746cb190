// The JavaScriptCore C API: WebKitGTK's javascriptcoregtk-4.1 on Linux,
// the system JavaScriptCore.framework on Apple platforms. Same header path, same API.
#include <JavaScriptCore/JavaScript.h>
#include <stdbool.h>
#include <stddef.h>

// MARK: Execution time limit (platform difference: where the functions come from)
//
// JSContextGroupSetExecutionTimeLimit / JSContextGroupClearExecutionTimeLimit are declared only in
// JSContextRefPrivate.h. WebKitGTK exports both from libjavascriptcoregtk-4.1 without installing
// that header; on Apple platforms they are SPI of JavaScriptCore.framework. So neither platform
// gets a prototype from a public header: the types are declared here, and the functions looked up
// at run time (PatchEngine's JSCPrivateFunctions.swift): when a JavaScriptCore lacks them the
// engine ends a runaway by throwing at its check points instead, and says so
// (PatchEngine.limitsEndByException). Signatures as in WebKit's JSContextRefPrivate.h.

/// Called on the thread running JS once the limit has passed; returning true terminates the script.
typedef bool (*PEJSShouldTerminateCallback)(JSContextRef ctx, void *context);
typedef void (*PEJSSetExecutionTimeLimitFunction)(JSContextGroupRef group, double limit,
                                                  PEJSShouldTerminateCallback callback, void *context);
typedef void (*PEJSClearExecutionTimeLimitFunction)(JSContextGroupRef group);

// MARK: Amortising JavaScriptCore's API lock, and weak references (platform difference: SPI)
//
// Every C API call takes and releases the VM's API lock unless the calling thread holds it
// already; a lock and release costs ≈ 35 ns on the CI machine kind, more than most of the calls it
// guards. JSLock / JSUnlock (WebKit's JSLockRefPrivate.h: "allows holding the lock across multiple
// interactions to amortize the cost"; recursive) hold it across several calls. JSWeak*
// (JSWeakPrivate.h) reference an object without keeping it alive; JSWeakGetObject reads NULL once
// the object has been collected, and takes no lock (the caller holds it). WebKitGTK exports both
// without installing their headers; Apple's JavaScriptCore.framework has them as SPI. Looked up at
// run time like the time limit: absent where a JavaScriptCore lacks them, and the engine then does
// without (each call takes the lock itself; every object crossing into JS gets a new box).
// Signatures as in WebKit.

typedef void (*PEJSLockFunction)(JSContextRef ctx);
/* JSC::VM::drainMicrotasks(), a member function: the VM (what a JSContextGroupRef points to) is
   its only argument. */
typedef void (*PEJSVMDrainMicrotasksFunction)(JSContextGroupRef group);
/* JSC::VM::deleteAllCode(DeleteAllCodeEffort), a member function like the one above; the effort
   is WebKit's enum (DeleteAllCodeEffort.h): 0 waits for a running collection, 1 skips the deletion
   while one runs. */
typedef void (*PEJSVMDeleteAllCodeFunction)(JSContextGroupRef group, int effort);
enum { PEJSDeleteAllCodeIfNotCollecting = 1 };

typedef struct OpaqueJSWeak *PEJSWeakRef;
typedef PEJSWeakRef (*PEJSWeakCreateFunction)(JSContextGroupRef group, JSObjectRef object);
typedef void (*PEJSWeakReleaseFunction)(JSContextGroupRef group, PEJSWeakRef weak);
typedef JSObjectRef (*PEJSWeakGetObjectFunction)(PEJSWeakRef weak);
