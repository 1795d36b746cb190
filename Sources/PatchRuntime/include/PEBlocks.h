#ifndef PE_BLOCKS_H
#define PE_BLOCKS_H
/* Blocks in both directions: blocks whose body is the engine's (a JS function), and calling any
   block with a frame. On GCC's runtime blocks are not Objective-C objects: never message them. */
#include <stdint.h>
#include <stdbool.h>
#include "PETypeEncoding.h"
#include "PEDispatch.h"

/* Called when a block made by PEBlockCreate is invoked (args[0] is the block) and when its last
   reference goes away, so the engine can run or release the function behind `token`. */
typedef void (*PEBlockInvokeHandler)(uintptr_t token, PEFrame *frame);
typedef void (*PEBlockDisposeHandler)(uintptr_t token);
void PESetBlockHandlers(PEBlockInvokeHandler invoke, PEBlockDisposeHandler dispose);

/* A heap block with the given block signature (return, then "@?" and the arguments); +1 reference. */
void *PEBlockCreate(const PESignature *signature, uintptr_t token, char **error);
bool PEIsBlock(const void *ptr);
/* The engine's token when `block` was made by PEBlockCreate, else 0. */
uintptr_t PEBlockGetToken(const void *block);
/* The block's own signature (clang emits one), or NULL. */
const PESignature *PEBlockGetSignature(const void *block);
void *PEBlockCopy(void *block);
void PEBlockRelease(void *block);
/* Calls the block; frame->arguments[0] must point at the block pointer. Catches Objective-C exceptions. */
bool PEBlockInvoke(void *block, PEFrame *frame, char **error);

#endif
