/* A call of a JS function made by JavaScriptCore's own internal entry (`JSC::call` with the
   function's `CallData`), not through `JSObjectCallAsFunction`: for the engine's hottest entry,
   a patched method called from Objective-C, with the API lock already held by the engine
   (APILock.swift). The C API call takes the lock again (recursively), copies the arguments into a
   MarkedArgumentBuffer, looks the call up through the object's method table and wraps the result
   and exception; this call does only what is left: the function's CallData and JavaScriptCore's
   entry.

   Private C++ symbols (PEJSCPrivateSymbols.h), and one layout fact of JavaScriptCore's that no
   header gives (where an Exception cell keeps its thrown value), found and checked at engine
   start (InternalCall.swift); anything missing or unlike what it checks, and the engine calls
   through the C API as before (docs/private-symbols.md). */
#ifndef PE_JSC_INTERNAL_CALL_H
#define PE_JSC_INTERNAL_CALL_H

#include <stdbool.h>
#include <stddef.h>

/* Looks the two symbols up. False where either is absent (an App Store build,
   PATCHENGINE_PRIVATE_SYMBOLS=absent, another JavaScriptCore). */
bool PEJSCInternalCallLookUp(void);

/* The offset in an Exception cell of its thrown value, taken from a call that threw `thrown`
   (an object): 0 when no candidate offset holds it. */
size_t PEJSCInternalCallFindExceptionValueOffset(const void *exceptionCell, const void *thrown);

/* The raw call: `function` (a JavaScriptCore JSFunction: a function made by script source, never
   a bound function, proxy or API object), `thisValue` (never NULL), `count` arguments (a NULL
   one passed as null, as the C API does). Returns the result, or NULL with `*exceptionCell` set
   to JavaScriptCore's Exception cell. The API lock must be held (JavaScriptCore asserts it). */
const void *PEJSCInternalCallRaw(const void *globalObject, const void *function, const void *thisValue,
                              size_t count, const void *const *args, const void **exceptionCell);

/* The thrown value kept by an Exception cell, at `offset` (PEJSCInternalCallFindExceptionValueOffset). */
const void *PEJSCInternalCallExceptionValue(const void *exceptionCell, size_t offset);

#endif
