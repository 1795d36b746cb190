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
    ffi_type **ffiArgs;
};

ffi_cif *PESignatureGetCIF(const PESignature *sig);

/* Runs body, turning an Objective-C exception into a malloc'd message in *error. */
#define PE_TRY(errorOut, ...) \
    do { @try { __VA_ARGS__; } @catch (id pe_exception) { if (errorOut) *(errorOut) = PEExceptionMessage(pe_exception); } } while (0)
char *PEExceptionMessage(id exception);

#endif
