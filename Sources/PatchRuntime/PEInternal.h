/* Declarations shared inside the runtime core only (not imported by Swift). */
#ifndef PE_INTERNAL_H
#define PE_INTERNAL_H
#import <Foundation/Foundation.h>
#include "PETypeEncoding.h"
#include "PEPlatform.h"     /* libffi's header where the platform has one (PE_HAS_LIBFFI) */

/* Whether calls and closures go through libffi. Where it exists, PATCHENGINE_WITHOUT_LIBFFI=1 in
   the environment turns it off at start, so the paths iOS takes (no public libffi) run here too. */
#if PE_HAS_LIBFFI
bool PEUsesLibFFI(void);
#else
static inline bool PEUsesLibFFI(void) { return false; }
#endif

struct PEType {
    PETypeKind kind;
    size_t size, alignment;
    char *encoding;
    char *name;
    char *className;
    unsigned fieldCount;
    const PEType **fields;
    size_t *offsets;
    const PEType *pointee;
    bool callable;          /* can be passed in a call: libffi's rules (no unions, bit-fields, bare arrays) */
#if PE_HAS_LIBFFI
    ffi_type *ffi;          /* NULL when not callable */
#endif
    size_t elements;        /* scalar elements, arrays expanded (an empty struct counts 1) */
};

struct PESignature {
    char *encoding, *runtimeEncoding;
    const PEType *returnType;
    unsigned argumentCount;
    const PEType **arguments;
    size_t *argumentOffsets;
    size_t frameSize;
    bool callable;          /* every part can be passed in a call (PESignatureIsCallable) */
#if PE_HAS_LIBFFI
    bool ffiPrepared;
    ffi_cif cif;            /* prepared when callable and libffi is used */
    ffi_type **ffiArgs;
#endif
    /* At most 6 arguments, all integer or pointer, returning void, an integer or a pointer: such
       calls go in general-purpose registers on x86-64 and arm64 and need no libffi at all. */
    bool registerOnly;
};

#if PE_HAS_LIBFFI
/* The prepared call interface, or NULL when the signature is not callable or libffi is not used. */
ffi_cif *PESignatureGetCIF(const PESignature *sig);
#endif

/* How a register-only function is called: six general-purpose registers in, one out (extra
   arguments are ignored by the callee in both calling conventions). */
typedef uintptr_t (*PERegisterFunction)(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);

/* A register entry (PERegisterEntries.m): a plain function of the PERegisterFunction shape that
   calls `handler(context, values)` with its six register arguments and returns what it returns.
   NULL when no more than `reserve` of the pool's 4096 entries are left (users that have another
   way leave some for those that don't). `index` is what PERegisterEntryRelease takes back, once
   no call can still reach the function. */
typedef uintptr_t (*PERegisterEntryHandler)(void *context, uintptr_t values[6]);
void *PERegisterEntryMake(PERegisterEntryHandler handler, void *context, unsigned reserve, unsigned *index);
void PERegisterEntryRelease(unsigned index);

/* Re-extends the narrow arguments among a register-only call's six register values from their
   low bytes, as the callee may expect (after a hook stored a narrow value into one). */
void PERegisterValuesExtend(const PESignature *sig, uintptr_t *values);

/* Calls `fn` with the frame's arguments when the signature is register-only (else libffi). The
   return buffer receives a full register (at least 8 bytes). Without libffi (PEUsesLibFFI) only
   register-only signatures can be called this way: false, nothing called, for any other. */
bool PECallFunction(void *fn, const PESignature *sig, void **arguments, void *returnValue);

/* Calls a block with the frame's arguments (arguments[0] is the block): PECallFunction on its
   invoke function, or, without libffi, NSInvocation (PEInvocationCall.m). Raises when neither can. */
void PECallBlock(void *block, const PESignature *sig, void **arguments, void *returnValue);

/* Calls without libffi (PEInvocationCall.m), each with NSInvocation; they raise what the callee
   raises. PEInvocationSend: the frame's message, sent. PEInvocationCallIMP: `imp`, a method of
   `owner` (the receiver's class or an ancestor), with the frame's arguments. PEInvocationCallBlock:
   `block` with `arguments` (arguments[0] is the block). */
struct PEFrame;
void PEInvocationSend(struct PEFrame *frame);
void PEInvocationCallIMP(IMP imp, Class owner, struct PEFrame *frame);
void PEInvocationCallBlock(void *block, const PESignature *sig, void **arguments, void *returnValue);

/* The function a block's call jumps to (PEBlocks.m): hook and swizzle blocks are called through it
   with the call's registers. */
void *PEBlockGetInvokeFunction(void *block);

/* Extends a narrow integer result in a return register to the register's full width, as callers
   expect (PEForwarding.m). */
void PEWidenReturn(const PEType *type, void *ret);

/* Runs body, turning an Objective-C exception into a malloc'd message in *error. */
#define PE_TRY(errorOut, ...) \
    do { @try { __VA_ARGS__; } @catch (id pe_exception) { if (errorOut) *(errorOut) = PEExceptionMessage(pe_exception); } } while (0)
char *PEExceptionMessage(id exception);

#endif
