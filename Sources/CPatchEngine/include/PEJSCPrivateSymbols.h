/* JavaScriptCore's (and WTF's) private symbols the engine uses: their names, looked up through the
   runtime core's registry (PEPrivateSymbols.h: the same two switches, App Store build and
   PATCHENGINE_PRIVATE_SYMBOLS=absent). docs/private-symbols.md lists them with their fallbacks;
   Swift reaches them typed through JSCPrivateFunctions.swift. */
#ifndef PE_JSC_PRIVATE_SYMBOLS_H
#define PE_JSC_PRIVATE_SYMBOLS_H

typedef enum PEJSCPrivateSymbol {
    /* JavaScriptCore (JSLockRefPrivate.h): the API lock held across several calls. Fallback: each
       C API call takes the lock itself (APILock.swift). */
    PEJSCPrivateSymbolJSLock,
    PEJSCPrivateSymbolJSUnlock,
    /* JavaScriptCore (JSWeakPrivate.h): one live box per object. Fallback: a new box per crossing
       (BoxCache.swift). */
    PEJSCPrivateSymbolJSWeakCreate,
    PEJSCPrivateSymbolJSWeakRelease,
    PEJSCPrivateSymbolJSWeakGetObject,
    /* JavaScriptCore (JSContextRefPrivate.h): the watchdog that ends an entry past the execution
       time or heap growth limit. Fallback: the end is thrown at the entry's check points
       (PatchEngine.limitsEndByException is true, logged once). */
    PEJSCPrivateSymbolJSContextGroupSetExecutionTimeLimit,
    PEJSCPrivateSymbolJSContextGroupClearExecutionTimeLimit,
    /* JavaScriptCore (VM.h, JS_EXPORT_PRIVATE; Apple's framework exports it for WebCore):
       `JSC::VM::drainMicrotasks()`, the promise jobs queued run now, inside the entry that queued
       them (JSEntry.swift, `settled`). Fallback: the API lock is not held across an entry
       (APILock.swift), so each C API call's own release of the lock runs them, inside the entry. */
    PEJSCPrivateSymbolVMDrainMicrotasks,
    /* JavaScriptCore (JSBasePrivate.h): a collection now. Fallback: JSGarbageCollect, a hint. */
    PEJSCPrivateSymbolJSSynchronousGarbageCollectForDebugging,
    /* WTF (WebKitGTK exports it; Apple's framework keeps WTF private): the allocator's free pages
       returned now. Fallback: its scavenger returns them a second or so later. */
    PEJSCPrivateSymbolWTFReleaseFastMallocFreeMemory,
    /* `JSC::VM::deleteAllCode(DeleteAllCodeEffort)` (VM.h, exported for WebCore, which calls it
       under critical memory pressure): every function's compiled code dropped (rebuilt when it
       runs again), deferred by JavaScriptCore while JS is on the VM's stack. Fallback: compiled
       code stays until JavaScriptCore itself discards it. */
    PEJSCPrivateSymbolVMDeleteAllCode,
    /* `JSC::JSFunction::getCallData(JSCell*)` and `JSC::call(JSGlobalObject*, JSValue, const
       CallData&, JSValue, const ArgList&, NakedPtr<Exception>&)` (exported for WebCore): a patched
       method's entry into JS under the API lock the engine holds (PEJSCInternalCall.h). Fallback:
       JSObjectCallAsFunction. */
    PEJSCPrivateSymbolJSFunctionGetCallData,
    PEJSCPrivateSymbolCall,
    PEJSCPrivateSymbolCount
} PEJSCPrivateSymbol;

/* The symbol's address; NULL where PEPrivateSymbolLookUp gives NULL. Not cached: the Swift side
   looks each up once. */
void *PEJSCPrivateSymbolAddress(PEJSCPrivateSymbol symbol);
/* The name looked up ("" in a build without private symbols). */
const char *PEJSCPrivateSymbolName(PEJSCPrivateSymbol symbol);
#endif
