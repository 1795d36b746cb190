/* Blocks laid out by the Clang block ABI. The invoke function is one plain function for blocks
   whose arguments fit in integer registers (the block itself is its first argument, so it needs no
   binding), and a libffi closure for the others where libffi exists; without libffi (iOS), one
   plain function per return class for those whose arguments all fit in registers once
   floating-point ones count apart (PEMixedRegisters.m). */
#include "PEInternal.h"
#include "PEBlocks.h"
#include <Block.h>
#include <stdlib.h>
#include <string.h>

enum {
    BLOCK_NEEDS_FREE = (1 << 24),
    BLOCK_HAS_COPY_DISPOSE = (1 << 25),
    BLOCK_IS_GLOBAL = (1 << 28),
    BLOCK_HAS_SIGNATURE = (1 << 30),
};

struct BlockDescriptor {
    unsigned long reserved, size;
    void (*copy)(void *dst, const void *src);
    void (*dispose)(const void *);
    const char *signature;
};

struct BlockLayout {
    void *isa;
    volatile int flags;
    int reserved;
    void (*invoke)(void);
    struct BlockDescriptor *descriptor;
    /* captured by our blocks: */
    uintptr_t token;
    void *closure;              /* the ffi_closure behind invoke, or NULL */
    const PESignature *signature;
};

static PEBlockInvokeHandler invokeHandler;
static PEBlockDisposeHandler disposeHandler;
void PESetBlockHandlers(PEBlockInvokeHandler invoke, PEBlockDisposeHandler dispose) {
    invokeHandler = invoke; disposeHandler = dispose;
}

/* The class of heap blocks. Its symbol (_NSConcreteMallocBlock) is not API (Block_private.h):
   it is read from a block the runtime copied to the heap. */
static void *mallocBlockClass(void) {
    static void *cls;
    void *found = __atomic_load_n(&cls, __ATOMIC_ACQUIRE);
    if (!found) {
        int captured = 1;
        void (^onStack)(void) = ^{ (void)captured; };     /* captures: a stack block (no ARC here) */
        void *copy = (void *)_Block_copy((const void *)onStack);
        found = *(void **)copy;
        _Block_release(copy);
        __atomic_store_n(&cls, found, __ATOMIC_RELEASE);
    }
    return found;
}

bool PEIsBlock(const void *ptr) {
    if (!ptr) return false;
    void *isa = *(void *const *)ptr;
    return isa == (void *)_NSConcreteStackBlock || isa == mallocBlockClass()
        || isa == (void *)_NSConcreteGlobalBlock;
}

static void engineBlockCopy(void *dst, const void *src) { (void)dst; (void)src; }
static void engineBlockDispose(const void *blockPtr) {
    const struct BlockLayout *block = blockPtr;
    if (disposeHandler && block->token) disposeHandler(block->token);
#if PE_HAS_LIBFFI
    if (block->closure) ffi_closure_free(block->closure);
#endif
}
/* One descriptor marks every block the engine made, so it can recognise them coming back. */
static struct BlockDescriptor engineDescriptor = {
    0, sizeof(struct BlockLayout), engineBlockCopy, engineBlockDispose, NULL
};

static void runBlock(struct BlockLayout *block, void **args, void *ret) {
    PEFrame frame = { block->signature, args, ret };
    if (invokeHandler) invokeHandler(block->token, &frame);
    if (ret) PEWidenReturn(PESignatureGetReturnType(block->signature), ret);
}

void PEBlockRun(void *block, void **arguments, void *returnValue) { runBlock(block, arguments, returnValue); }

#if PE_HAS_LIBFFI
static void blockEntry(ffi_cif *cif, void *ret, void **args, void *userData) {
    (void)cif;
    runBlock(userData, args, ret);
}
#endif

/* The invoke function of register-only blocks: values[0] is the block. */
static uintptr_t registerBlockEntry(uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3, uintptr_t a4, uintptr_t a5) {
    uintptr_t values[6] = { a0, a1, a2, a3, a4, a5 };
    struct BlockLayout *block = (struct BlockLayout *)a0;
    void *args[6] = { &values[0], &values[1], &values[2], &values[3], &values[4], &values[5] };
    uintptr_t ret[2] = { 0, 0 };
    bool returns = PETypeGetKind(PESignatureGetReturnType(block->signature)) != PETypeKindVoid;
    runBlock(block, args, returns ? ret : NULL);
    return ret[0];
}

void *PEBlockCreate(const PESignature *signature, uintptr_t token, char **error) {
    if (!PESignatureIsCallable(signature)) { if (error) *error = strdup("block signature cannot be called (unions, bit-fields or arrays)"); return NULL; }
    /* Laid out as a stack block, then copied to the heap by the runtime (which sets the heap
       class and a reference count of 1): the public way to get a heap block. */
    struct BlockLayout onStack = {
        .isa = (void *)_NSConcreteStackBlock, .flags = BLOCK_HAS_COPY_DISPOSE,
        .descriptor = &engineDescriptor, .token = token, .signature = signature,
    };
    void *code = NULL;
    bool useFFI = !(signature->registerOnly && !PEUsesLibFFI());
#if PE_HAS_LIBFFI
    ffi_closure *closure = NULL;
    if (useFFI && PEUsesLibFFI()) {
        closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
        if (!closure) {
            if (error) *error = strdup("could not allocate a libffi closure for a block");
            return NULL;
        }
        onStack.closure = closure;
    }
#endif
    if (!useFFI) code = (void *)registerBlockEntry;
    if (!code && !PEUsesLibFFI()) code = PEMixedBlockEntry(signature);
    if (!code) {
        if (error) *error = strdup("a block whose arguments don't all fit in registers (more than 6 integer or 8 "
                                   "floating-point ones, a struct other than a few doubles) needs libffi, which this "
                                   "platform doesn't have (iOS)");
        return NULL;
    }
    onStack.invoke = (void (*)(void))code;
    struct BlockLayout *block = (struct BlockLayout *)_Block_copy((const void *)&onStack);
    if (block == &onStack) {
        /* GNUstep-base exports a _Block_copy of its own that copies only blocks with an obsolete
           flag set (clang sets it on none): when the dynamic linker finds it before the Blocks
           runtime's, the "copy" is this frame, dead once we return (make arm64-check crashed on
           it). Fail here rather than hand out a dangling block. */
#if PE_HAS_LIBFFI
        if (closure) ffi_closure_free(closure);
#endif
        if (error) *error = strdup("_Block_copy in this process does not copy blocks (GNUstep-base's is bound ahead of "
                                   "the Blocks runtime's): link BlocksRuntime before gnustep-base");
        return NULL;
    }
#if PE_HAS_LIBFFI
    /* The closure's data is the heap block, known only now. */
    if (closure && (!block || ffi_prep_closure_loc(closure, PESignatureGetCIF(signature), blockEntry, block, code) != FFI_OK)) {
        if (block) { block->closure = NULL; block->token = 0; _Block_release(block); }   /* the caller keeps its token */
        ffi_closure_free(closure);
        if (error) *error = strdup("could not prepare a libffi closure for a block");
        return NULL;
    }
#endif
    if (!block && error) *error = strdup("out of memory for a block");
    return block;
}

uintptr_t PEBlockGetToken(const void *ptr) {
    const struct BlockLayout *block = ptr;
    return (PEIsBlock(ptr) && block->descriptor == &engineDescriptor) ? block->token : 0;
}

const PESignature *PEBlockGetSignature(const void *ptr) {
    const struct BlockLayout *block = ptr;
    if (!PEIsBlock(ptr)) return NULL;
    if (block->descriptor == &engineDescriptor) return block->signature;
    if (!(block->flags & BLOCK_HAS_SIGNATURE)) return NULL;
    /* The signature follows copy/dispose in the descriptor only when those are present. */
    const char *const *sigField = (block->flags & BLOCK_HAS_COPY_DISPOSE)
        ? &block->descriptor->signature
        : (const char *const *)&block->descriptor->copy;
    return *sigField ? PESignatureParse(*sigField, NULL) : NULL;
}

void *PEBlockCopy(void *block) { return (void *)_Block_copy(block); }
void PEBlockRelease(void *block) { _Block_release(block); }

void PECallBlock(void *block, const PESignature *sig, void **arguments, void *returnValue) {
    if (!PESignatureIsCallable(sig))
        [NSException raise:NSInvalidArgumentException format:@"block signature %s cannot be called (unions, bit-fields or arrays)",
            PESignatureGetEncoding(sig)];
    if (!PECallFunction(PEBlockGetInvokeFunction(block), sig, arguments, returnValue))
        PEInvocationCallBlock(block, sig, arguments, returnValue);
}

bool PEBlockInvoke(void *ptr, PEFrame *frame, char **error) {
    bool ok = false;
    PE_TRY(error, { PECallBlock(ptr, frame->signature, frame->arguments, frame->returnValue); ok = true; });
    return ok;
}

void *PEBlockGetInvokeFunction(void *ptr) { return (void *)((struct BlockLayout *)ptr)->invoke; }
