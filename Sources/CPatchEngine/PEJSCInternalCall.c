/* PEJSCInternalCall.h. JavaScriptCore's C++ types as the Itanium C++ ABI passes them (the same on
   x86-64 Linux and on Apple arm64): CallData, only passed through, is returned through memory
   (24 bytes in WebKit 2.50: a type byte and a union of two pointers; the buffer leaves room);
   ArgList is a pointer to the encoded values and their count; a JSValue is one 64-bit word, what
   a JSValueRef is on 64-bit; NakedPtr<Exception>& is the address of one pointer. The engine's
   check at start (InternalCall.swift) calls through them and compares with the C API. */
#include "PEJSCInternalCall.h"
#include "PEJSCPrivateSymbols.h"
#include <pthread.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint64_t words[8];
} PEJSCallData;

typedef struct {
    const uint64_t *args;
    int count;
} PEJSArgList;

typedef PEJSCallData (*PEJSGetCallDataFunction)(const void *cell);
typedef uint64_t (*PEJSCallFunction)(const void *globalObject, uint64_t function, const PEJSCallData *callData,
                                     uint64_t thisValue, const PEJSArgList *args, const void **exception);

static PEJSGetCallDataFunction getCallData;
static PEJSCallFunction call;

/* JSValue's encoding of null on 64-bit (JSCJSValue.h: ValueNull = TagOther | 0x0). */
enum { PEJSEncodedNull = 0x02 };
enum { PEJSCInternalCallMaxArguments = 16 };

static pthread_once_t lookUpOnce = PTHREAD_ONCE_INIT;

static void lookUp(void) {
    getCallData = (PEJSGetCallDataFunction)PEJSCPrivateSymbolAddress(PEJSCPrivateSymbolJSFunctionGetCallData);
    call = (PEJSCallFunction)PEJSCPrivateSymbolAddress(PEJSCPrivateSymbolCall);
}

bool PEJSCInternalCallLookUp(void) {
    pthread_once(&lookUpOnce, lookUp);   /* every VM's start asks, maybe on several threads */
    return getCallData && call && sizeof(void *) == 8;
}

size_t PEJSCInternalCallFindExceptionValueOffset(const void *exceptionCell, const void *thrown) {
    /* After the cell header (8 bytes): a JSCell's first field, or a JSNonFinalObject's after its
       butterfly (older layouts). */
    static const size_t candidates[2] = { 8, 16 };
    size_t found = 0;
    for (int i = 0; i < 2; i++) {
        const void *value;
        memcpy(&value, (const char *)exceptionCell + candidates[i], sizeof value);
        if (value == thrown) { if (found) return 0; found = candidates[i]; }
    }
    return found;
}

const void *PEJSCInternalCallRaw(const void *globalObject, const void *function, const void *thisValue,
                              size_t count, const void *const *args, const void **exceptionCell) {
    uint64_t encoded[PEJSCInternalCallMaxArguments];
    if (count > PEJSCInternalCallMaxArguments) count = PEJSCInternalCallMaxArguments;   /* callers check */
    for (size_t i = 0; i < count; i++) encoded[i] = args[i] ? (uint64_t)(uintptr_t)args[i] : PEJSEncodedNull;
    PEJSCallData callData = getCallData(function);
    PEJSArgList list = { encoded, (int)count };
    const void *exception = NULL;
    uint64_t result = call(globalObject, (uint64_t)(uintptr_t)function, &callData, (uint64_t)(uintptr_t)thisValue,
                           &list, &exception);
    if (exception) { *exceptionCell = exception; return NULL; }
    return (const void *)(uintptr_t)result;
}

const void *PEJSCInternalCallExceptionValue(const void *exceptionCell, size_t offset) {
    const void *value;
    memcpy(&value, (const char *)exceptionCell + offset, sizeof value);
    return value;
}
