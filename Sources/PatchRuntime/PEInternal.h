/* Declarations shared inside the runtime core only (not imported by Swift). */
#ifndef PE_INTERNAL_H
#define PE_INTERNAL_H
#import <Foundation/Foundation.h>
#include <ffi.h>
#include "PETypeEncoding.h"
#include "PEPlatform.h"

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
    ffi_type *ffi;          /* NULL when libffi cannot represent it */
    size_t elements;        /* scalar elements, arrays expanded (an empty struct counts 1) */
};

struct PESignature {
    char *encoding, *runtimeEncoding;
    const PEType *returnType;
    unsigned argumentCount;
    const PEType **arguments;
    size_t *argumentOffsets;
    size_t frameSize;
    bool ffiCompatible;
    ffi_cif cif;            /* prepared when ffiCompatible */
    /* At most 6 arguments, all integer or pointer, returning void, an integer or a pointer: such
       calls go in general-purpose registers on x86-64 and arm64 and need no libffi at all. */
    bool registerOnly;
    ffi_type **ffiArgs;
};

ffi_cif *PESignatureGetCIF(const PESignature *sig);

/* How a register-only function is called: six general-purpose registers in, one out (extra
   arguments are ignored by the callee in both calling conventions). */
typedef uintptr_t (*PERegisterFunction)(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);

/* Re-extends the narrow arguments among a register-only call's six register values from their
   low bytes, as the callee may expect (after a hook stored a narrow value into one). */
void PERegisterValuesExtend(const PESignature *sig, uintptr_t *values);

/* Calls `fn` with the frame's arguments when the signature is register-only (else libffi). The
   return buffer receives a full register (at least 8 bytes). */
void PECallFunction(void *fn, const PESignature *sig, void **arguments, void *returnValue);

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
