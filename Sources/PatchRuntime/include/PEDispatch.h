#ifndef PE_DISPATCH_H
#define PE_DISPATCH_H
/* The dispatcher: every patched (class, selector) is a slot whose entry IMP funnels calls
   into one pipeline, whatever route reached it (the runtime's forwarding or a libffi closure). */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "PETypeEncoding.h"

/* One call in flight: arguments[i] points at argument i's storage (0 = self, 1 = _cmd);
   returnValue points at storage of at least max(return size, 8) bytes, or NULL for void. */
typedef struct PEFrame {
    const PESignature *signature;
    void **arguments;
    void *returnValue;
} PEFrame;

typedef struct PESlot PESlot;

/* How a slot's selector reaches the dispatcher. */
typedef enum PERoute {
    /* The runtime's forwarding IMP + the engine's -forwardInvocation: (JSPatch's route). */
    PERouteForwarding = 0,
    /* A libffi closure per slot that calls the pipeline directly (no NSInvocation). */
    PERouteClosure = 1,
} PERoute;

/* The engine's callback for a slot that has a patch: convert the frame, run the patch, set the
   return value. `token` identifies the patch (the engine's own table). */
typedef void (*PEPatchHandler)(PESlot *slot, PEFrame *frame, uintptr_t token);
void PESetPatchHandler(PEPatchHandler handler);
/* Releases a patch token's record (the engine's). Called once per retired token, when no call
   that could have read it from a slot is still running, on whichever thread reclaims it. */
typedef void (*PEPatchTokenReleaser)(uintptr_t token);
void PESetPatchTokenReleaser(PEPatchTokenReleaser releaser);
/* Hands a token no slot holds any more (PESlotSetPatch replaced it) to the epochs: released
   through the releaser once every call that could see it has returned. */
void PEPatchTokenRetire(uintptr_t token);

/* The route used for slots created from now on (default: closure). A slot keeps its route. */
void PESetDefaultRoute(PERoute route);
PERoute PEGetDefaultRoute(void);

/* Why `selector` can never be taken over (a memory-management method the engine sends itself), or
   NULL when it can. PESlotInstall refuses these; the hook and swizzle APIs check it first. */
const char *PEReservedSelectorReason(const char *selector);

/* Takes over (cls, selector) — an instance method of cls, or a class method when cls is a metaclass.
   `types` is required when the selector is new to the class (an added method); otherwise the existing
   encoding is used. Returns the existing slot when there is one. NULL with *error (malloc'd) on failure. */
PESlot *PESlotInstall(void *cls, const char *selector, const char *types, char **error);
/* The slot for exactly this class (not inherited), or NULL. */
PESlot *PESlotFind(void *cls, const char *selector);

void PESlotSetPatch(PESlot *slot, uintptr_t token);   /* 0 clears */
uintptr_t PESlotGetPatch(const PESlot *slot);
const PESignature *PESlotGetSignature(const PESlot *slot);
PERoute PESlotGetRoute(const PESlot *slot);
/* Releases the class's method back to its own implementation when the slot has no layers left
   and had one; otherwise leaves the slot installed and transparent (calls go to the superclass). */
void PESlotUninstallIfUnused(PESlot *slot);

/* Runs the whole pipeline of the slot (what a caller of the method gets). */
void PESlotInvoke(PESlot *slot, PEFrame *frame);
/* Runs what is below the patch: the class's own original IMP, or the superclass's current
   implementation resolved now (so later patches of the parent are seen). Zero-fills the return
   when there is nothing to call. */
void PESlotInvokeOriginal(PESlot *slot, PEFrame *frame);
/* PESlotInvokeOriginal that turns Objective-C exceptions into *error (malloc'd). */
bool PESlotInvokeOriginalCatching(PESlot *slot, PEFrame *frame, char **error);
/* The slot of the nearest class at or above `cls` that has one for `selector`, or NULL. */
PESlot *PESlotFindInHierarchy(void *cls, const char *selector);
/* Resolves the implementation of frame's selector starting at class `start` (inclusive) and runs it,
   entering slots directly instead of by message send. Used for super calls. */
void PEInvokeFromClass(void *start, const char *selector, PEFrame *frame);

/* A message send of frame's selector (arguments[1]) to frame's receiver (arguments[0]); catches exceptions. */
bool PEMessageSend(PEFrame *frame, char **error);
/* A message send whose arguments all travel in general-purpose registers (a register-only
   signature, PESignatureIsRegisterOnly): values[0] the receiver, [1] the selector, then the
   arguments, each already widened as its type is (sign or zero extension); *result receives the
   return register (narrow results are not extended). No frame, no libffi. Catches exceptions. */
bool PEMessageSendRegisters(uintptr_t values[6], uintptr_t *result, char **error);
/* At most 6 arguments (self and _cmd included), all integers, pointers or objects, returning
   void, one of those or nothing wider than a register. */
bool PESignatureIsRegisterOnly(const PESignature *sig);
/* A message send of a variadic method: the first `fixedArgumentCount` arguments (self and _cmd
   included) are the method's own, the rest the variadic part. */
bool PEMessageSendVariadic(PEFrame *frame, unsigned fixedArgumentCount, char **error);
/* A super send: implementation resolved from `startClass` (inclusive), slots entered directly. */
bool PESuperSend(void *startClass, PEFrame *frame, char **error);

/* The address of a C function exported by the process or a loaded library, or NULL. */
void *PESymbolLookup(const char *name);
/* Calls a C function with the frame (a signature without implicit arguments). */
bool PEInvokeFunction(void *function, PEFrame *frame, char **error);

/* Dispatch generations: one counter per class the engine asked about (PEDispatchGenerationIndex),
   which goes up whenever a slot's layers change (a patch set or cleared, a hook or swizzle added
   or removed, a slot installed or released) in that class or one of its superclasses; a change in
   another class leaves it alone. Counter 0 stands for classes beyond the capacity and goes up with
   every change. The engine keeps answers derived from the dispatcher's state (which JS function a
   call from JS may run directly) only while their class's counter is the one they were computed
   in. The counters are static memory the engine's JS reads (through an ArrayBuffer over
   PEDispatchGenerations()) without a call into native code. */
#define PE_DISPATCH_GENERATION_CAPACITY 4096
uint32_t *PEDispatchGenerations(void);
/* The counter of `cls` (a class or metaclass), given one on first ask; 0 when full. */
unsigned PEDispatchGenerationIndex(void *cls);
uint32_t PEDispatchGenerationRead(unsigned index);
/* A change in `cls`: its counter and those of its subclasses that have one go up. */
void PEDispatchGenerationBumpClass(void *cls);
/* A change for every class (an engine setting). */
void PEDispatchGenerationBumpAll(void);
/* An answer kept for `cls` assumed that a send of `sel` to it finds `imp`. Other code can change
   that without a slot changing (class_addMethod in a subclass overriding the patched method):
   every change the engine makes (any class's) checks the answers it watches, and moves the
   counter of a class whose send now finds another implementation. */
void PEDispatchGenerationWatch(void *cls, const void *sel, void *imp);

/* Whether a message of `selector` to an instance of `cls` (`cls` the receiver's class; a metaclass
   for a class) runs nothing but a JS patch: the implementation it resolves to is an installed
   slot's, whose only layer is its patch (no hooks, no swizzles, no native override in between).
   If so, runs `body` with the patch token, the slot's signature and the address of the word the
   runtime reads the method's IMP from (PEMethodIMPAddress: a caller compares it with `imp` on each
   call, so that a replacement by other code — method_setImplementation, an exchange — is seen at
   once) inside a read section (the token's record can't be freed meanwhile) and returns true.
   False also when the method's IMP is not the slot's (replaced by other code) or can't be read. */
typedef void (*PEDirectPatchBody)(uintptr_t token, const PESignature *signature, const void *impAddress,
                                  const void *imp, void *context);
bool PEDirectPatchRun(void *cls, const char *selector, PEDirectPatchBody body, void *context);

/* Counters for tests and diagnostics. */
uint64_t PEDispatchForwardedCallCount(void);
/* Hooked calls the calling thread ran from a precomputed plan (the closure route's fast path for
   Before/After hooks, PEHookPlan.m) rather than the generic pipeline. */
uint64_t PEDispatchPlanCallCountOnThisThread(void);
/* Calls of JS patches this thread made from native code: a call of a JS-defined method that JS
   made directly (DirectCalls.swift) is not one. */
uint64_t PEDispatchPatchedCallCountOnThisThread(void);
/* Whether each hooked call pays a memory fence: true where the system has no process-wide
   barrier for hook changes to pay instead (not Linux, or membarrier refused, or the environment
   sets PATCHENGINE_NO_MEMBARRIER). */
bool PEDispatchReadersFence(void);

#endif
