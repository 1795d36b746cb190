/* Declarations shared inside the runtime core only (not imported by Swift). */
#ifndef PE_INTERNAL_H
#define PE_INTERNAL_H
#import <Foundation/Foundation.h>
#include "PETypeEncoding.h"
#include "PEPlatform.h"     /* libffi's header where the platform has one (PE_HAS_LIBFFI) */
#include "PEStressPoints.h"

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
    /* Not register-only, but every argument in a register once floating-point ones count apart
       (PEMixedRegisters.m): where each argument travels, and how the result comes back. */
    bool mixedRegisters;
    unsigned char mixedReturn;          /* a PEMixedReturn */
    unsigned char mixedReturnDoubles;   /* PEMixedReturnDoubles: how many */
    struct PERegisterPlace *places;     /* per argument */
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

/* Register calls with floating-point arguments, without libffi (PEMixedRegisters.m). A function of
   this one type stands for any signature whose arguments all travel in registers: six integer
   registers (the portable subset: x86-64 has six, arm64 eight), then eight floating-point ones. */
#define PE_MIXED_GENERAL 6
#define PE_MIXED_FLOATING 8
#define PE_MIXED_PARAMETERS uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3, uintptr_t a4, uintptr_t a5, \
    double d0, double d1, double d2, double d3, double d4, double d5, double d6, double d7
typedef struct { double d[PE_DOUBLE_AGGREGATE_REGISTERS > 0 ? PE_DOUBLE_AGGREGATE_REGISTERS : 1]; } PEDoubleAggregate;
typedef struct { uintptr_t w[2]; } PEWordPair;    /* a struct of integers of up to 16 bytes comes back in two registers */
typedef enum { PEMixedReturnGeneral, PEMixedReturnFloat, PEMixedReturnDouble, PEMixedReturnDoubles, PEMixedReturnWords } PEMixedReturn;
/* An argument's register: the integer or floating-point file, the first index, and how many
   (a struct of doubles takes one per member, a struct of integers one per 8 bytes). */
typedef struct PERegisterPlace { bool floating; unsigned char index, count; } PERegisterPlace;
/* Sets the signature's mixed-register fields (at parse time). */
void PESignatureLayOutMixedRegisters(PESignature *sig);
/* Calls `fn` when the signature is laid out in mixed registers: false, nothing called, otherwise. */
bool PEMixedCall(void *fn, const PESignature *sig, void **arguments, void *returnValue);
/* Calls `fn`, variadic after its first `fixedCount` arguments (all of them: not variadic), with
   arguments past the registers on the stack (PEMixedRegisters.m). False, nothing called, when
   they don't fit. */
bool PEMixedCallWithStack(void *fn, const PESignature *sig, unsigned fixedCount, void **arguments, void *returnValue);
/* Points `args` at the arguments a mixed-register call left in `g` and `d` (sig->places). */
void PEMixedArguments(const PESignature *sig, uintptr_t *g, double *d, void **args);
/* Where a mixed-register entry's handler writes the result, whatever its class. */
typedef union { PEDoubleAggregate doubles; PEWordPair words; } PEMixedReturnBuffer;
/* The five functions of one mixed-register entry, one per return class (generalEntry<suffix>,
   doubleEntry…, floatEntry…, doublesEntry…, wordsEntry…): each gathers its registers and runs
   `RUN(g, d, &ret)`, then returns `ret` as its class does. */
#define PE_MIXED_ENTRY_GATHER(RUN) \
    uintptr_t g[PE_MIXED_GENERAL] = { a0, a1, a2, a3, a4, a5 }; \
    double d[PE_MIXED_FLOATING] = { d0, d1, d2, d3, d4, d5, d6, d7 }; \
    PEMixedReturnBuffer ret; memset(&ret, 0, sizeof ret); \
    RUN(g, d, &ret)
#define PE_MIXED_ENTRY_FUNCTIONS(linkage, suffix, RUN) \
    linkage uintptr_t generalEntry##suffix(PE_MIXED_PARAMETERS) { PE_MIXED_ENTRY_GATHER(RUN); return ret.words.w[0]; } \
    linkage double doubleEntry##suffix(PE_MIXED_PARAMETERS) { PE_MIXED_ENTRY_GATHER(RUN); return ret.doubles.d[0]; } \
    linkage float floatEntry##suffix(PE_MIXED_PARAMETERS) { PE_MIXED_ENTRY_GATHER(RUN); float r; memcpy(&r, &ret, sizeof r); return r; } \
    linkage PEDoubleAggregate doublesEntry##suffix(PE_MIXED_PARAMETERS) { PE_MIXED_ENTRY_GATHER(RUN); return ret.doubles; } \
    linkage PEWordPair wordsEntry##suffix(PE_MIXED_PARAMETERS) { PE_MIXED_ENTRY_GATHER(RUN); return ret.words; }

/* A mixed-register entry bound to a context (PEMixedEntries.m): a plain function of `sig`'s shape
   (a mixed-register signature) that calls `handler(context, arguments, returnValue)`, the
   arguments as the call left them. What a swizzle's continuation is without libffi for methods
   with floating-point or struct arguments. NULL when the pool's 256 entries are used up. */
typedef void (*PEMixedEntryHandler)(void *context, void **arguments, void *returnValue);
void *PEMixedEntryMake(const PESignature *sig, PEMixedEntryHandler handler, void *context, unsigned *index);
void PEMixedEntryRelease(unsigned index);

/* The invoke function for an engine block of a mixed-register signature, or NULL. */
void *PEMixedBlockEntry(const PESignature *sig);
/* Runs an engine block's handler with a frame (PEBlocks.m): what its invoke functions do. */
void PEBlockRun(void *block, void **arguments, void *returnValue);
/* A register argument's value widened as the callee may expect (sign or zero extension). */
uintptr_t PERegisterValue(const PEType *type, const void *value);

/* Calls `fn` with the frame's arguments when the signature is register-only (else libffi). The
   return buffer receives a full register (at least 8 bytes). Without libffi (PEUsesLibFFI) only
   register-only and mixed-register signatures can be called this way: false, nothing called, for
   any other. */
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
