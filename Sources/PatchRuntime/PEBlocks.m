/* Blocks laid out by the Clang block ABI, with a libffi closure as the invoke function. */
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
    ffi_closure *closure;
    const PESignature *signature;
};

static PEBlockInvokeHandler invokeHandler;
static PEBlockDisposeHandler disposeHandler;
void PESetBlockHandlers(PEBlockInvokeHandler invoke, PEBlockDisposeHandler dispose) {
    invokeHandler = invoke; disposeHandler = dispose;
}

extern void *_NSConcreteMallocBlock[32];
extern void *_NSConcreteAutoBlock[32] __attribute__((weak));
extern void *_NSConcreteFinalizingBlock[32] __attribute__((weak));

bool PEIsBlock(const void *ptr) {
    if (!ptr) return false;
    void *isa = *(void *const *)ptr;
    return isa == (void *)_NSConcreteStackBlock || isa == (void *)_NSConcreteMallocBlock
        || isa == (void *)_NSConcreteGlobalBlock;
}

static void engineBlockCopy(void *dst, const void *src) { (void)dst; (void)src; }
static void engineBlockDispose(const void *blockPtr) {
    const struct BlockLayout *block = blockPtr;
    if (disposeHandler) disposeHandler(block->token);
    ffi_closure_free(block->closure);
}
/* One descriptor marks every block the engine made, so it can recognise them coming back. */
static struct BlockDescriptor engineDescriptor = {
    0, sizeof(struct BlockLayout), engineBlockCopy, engineBlockDispose, NULL
};

static void blockEntry(ffi_cif *cif, void *ret, void **args, void *userData) {
    (void)cif;
    struct BlockLayout *block = userData;
    PEFrame frame = { block->signature, args, ret };
    if (invokeHandler) invokeHandler(block->token, &frame);
    if (ret) PEWidenReturn(PESignatureGetReturnType(block->signature), ret);
}

void *PEBlockCreate(const PESignature *signature, uintptr_t token, char **error) {
    ffi_cif *cif = PESignatureGetCIF(signature);
    if (!cif) { if (error) *error = strdup("block signature cannot be called through libffi"); return NULL; }
    struct BlockLayout *block = calloc(1, sizeof *block);
    void *code = NULL;
    block->closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    if (!block->closure || ffi_prep_closure_loc(block->closure, cif, blockEntry, block, code) != FFI_OK) {
        free(block);
        if (error) *error = strdup("could not allocate a libffi closure for a block");
        return NULL;
    }
    block->isa = _NSConcreteMallocBlock;
    /* Reference count 1 (counted in steps of 2 in the low bits, as the runtime does). */
    block->flags = BLOCK_NEEDS_FREE | BLOCK_HAS_COPY_DISPOSE | 2;
    block->invoke = (void (*)(void))code;
    block->descriptor = &engineDescriptor;
    block->token = token;
    block->signature = signature;
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

bool PEBlockInvoke(void *ptr, PEFrame *frame, char **error) {
    struct BlockLayout *block = ptr;
    ffi_cif *cif = PESignatureGetCIF(frame->signature);
    if (!cif) { if (error) *error = strdup("block signature cannot be called through libffi"); return false; }
    bool ok = false;
    PE_TRY(error, { PECallFunction((void *)block->invoke, frame->signature, frame->arguments, frame->returnValue); ok = true; });
    return ok;
}

void *PEBlockGetInvokeFunction(void *ptr) { return (void *)((struct BlockLayout *)ptr)->invoke; }
