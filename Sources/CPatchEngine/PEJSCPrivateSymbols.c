/* JavaScriptCore's private symbols (PEJSCPrivateSymbols.h): the names; the lookup is the runtime
   core's (PEPrivateSymbolLookUp). */
#include "PEJSCPrivateSymbols.h"
#include "PEPrivateSymbols.h"       /* the runtime core's (PatchRuntime) */

#if defined(PE_NO_PRIVATE_API)
/* An App Store build: no name is compiled in. */
#define PE_JSC_SYMBOL(name) ""
#else
#define PE_JSC_SYMBOL(name) name
#endif

static const char *const names[PEJSCPrivateSymbolCount] = {
    [PEJSCPrivateSymbolJSLock] = PE_JSC_SYMBOL("JSLock"),
    [PEJSCPrivateSymbolJSUnlock] = PE_JSC_SYMBOL("JSUnlock"),
    [PEJSCPrivateSymbolJSWeakCreate] = PE_JSC_SYMBOL("JSWeakCreate"),
    [PEJSCPrivateSymbolJSWeakRelease] = PE_JSC_SYMBOL("JSWeakRelease"),
    [PEJSCPrivateSymbolJSWeakGetObject] = PE_JSC_SYMBOL("JSWeakGetObject"),
    [PEJSCPrivateSymbolJSContextGroupSetExecutionTimeLimit] = PE_JSC_SYMBOL("JSContextGroupSetExecutionTimeLimit"),
    [PEJSCPrivateSymbolJSContextGroupClearExecutionTimeLimit] = PE_JSC_SYMBOL("JSContextGroupClearExecutionTimeLimit"),
    [PEJSCPrivateSymbolVMDrainMicrotasks] = PE_JSC_SYMBOL("_ZN3JSC2VM15drainMicrotasksEv"),
    [PEJSCPrivateSymbolJSSynchronousGarbageCollectForDebugging] = PE_JSC_SYMBOL("JSSynchronousGarbageCollectForDebugging"),
    [PEJSCPrivateSymbolWTFReleaseFastMallocFreeMemory] = PE_JSC_SYMBOL("_ZN3WTF27releaseFastMallocFreeMemoryEv"),
    [PEJSCPrivateSymbolVMDeleteAllCode] = PE_JSC_SYMBOL("_ZN3JSC2VM13deleteAllCodeENS_19DeleteAllCodeEffortE"),
    [PEJSCPrivateSymbolJSFunctionGetCallData] = PE_JSC_SYMBOL("_ZN3JSC10JSFunction11getCallDataEPNS_6JSCellE"),
    [PEJSCPrivateSymbolCall] = PE_JSC_SYMBOL("_ZN3JSC4callEPNS_14JSGlobalObjectENS_7JSValueERKNS_8CallDataES2_RKNS_7ArgListERN3WTF8NakedPtrINS_9ExceptionEEE"),
};

const char *PEJSCPrivateSymbolName(PEJSCPrivateSymbol symbol) {
    return (unsigned)symbol < PEJSCPrivateSymbolCount ? names[symbol] : "";
}

void *PEJSCPrivateSymbolAddress(PEJSCPrivateSymbol symbol) {
    return PEPrivateSymbolLookUp(PEJSCPrivateSymbolName(symbol));
}
