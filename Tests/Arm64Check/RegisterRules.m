/* The rules a compiled comparison can't see on Linux arm64, checked on the registers themselves.
   - Caller side: Apple's arm64 ABI has the caller sign- or zero-extend an argument narrower than
     32 bits to 32 bits, and its callees rely on it (standard AAPCS64 leaves those bits
     unspecified, so a Linux callee never looks). A spy function reading whole registers receives
     the engine's calls: each narrow argument must arrive extended, in the register its place says.
   - Callee side: a caller may leave anything in the bits above an argument's width (AAPCS64; on
     Apple, above 32 bits). The engine's entries are called with garbage there and must see the
     values alone; and a narrow result must come back extended to 32 bits, as Apple's callers
     expect of a callee. */
#import "Check.h"
#include "PEInternal.h"
#include "PatchRuntime.h"
#include <string.h>
#include <Block.h>

static uintptr_t spiedGeneral[8];
static double spiedFloating[8];

static uintptr_t spy(uintptr_t x0, uintptr_t x1, uintptr_t x2, uintptr_t x3, uintptr_t x4, uintptr_t x5,
                     double d0, double d1, double d2, double d3, double d4, double d5, double d6, double d7) {
    uintptr_t g[8] = { x0, x1, x2, x3, x4, x5 };
    double d[8] = { d0, d1, d2, d3, d4, d5, d6, d7 };
    memcpy(spiedGeneral, g, sizeof g);
    memcpy(spiedFloating, d, sizeof d);
    return 0;
}

/* What Apple's callee may assume of a narrow argument's register: its low 32 bits. */
static uint32_t extended32(char kind, uintptr_t raw) {
    switch (kind) {
        case 'c': return (uint32_t)(int32_t)(int8_t)raw;
        case 'C': case 'B': return (uint32_t)(uint8_t)raw;
        case 's': return (uint32_t)(int32_t)(int16_t)raw;
        case 'S': return (uint32_t)(uint16_t)raw;
        default: return (uint32_t)raw;
    }
}

/* The engine calls the spy with narrow arguments (register-only, then mixed with doubles). */
static void callerExtendsNarrowArguments(const char *types) {
    const char *error = NULL;
    const PESignature *sig = PESignatureParse(types, &error);
    unsigned count = PESignatureGetArgumentCount(sig);
    unsigned char storage[8][16];
    void *arguments[8];
    for (unsigned i = 0; i < count; i++) {
        memset(storage[i], 0xa5, sizeof storage[i]);    /* the bytes past the value are not zero */
        acSample(PETypeGetEncoding(PESignatureGetArgument(sig, i)), storage[i], 40 + i);
        arguments[i] = storage[i];
    }
    uintptr_t ret[4] = { 0 };
    PEFrame frame = { sig, arguments, ret };
    memset(spiedGeneral, 0, sizeof spiedGeneral);
    char *callError = NULL;
    bool ok = PEInvokeFunction((void *)spy, &frame, &callError);
    char what[96];
    snprintf(what, sizeof what, "caller-side extension, %s", types);
    acCheck(ok, what, "the call failed: %s", callError ? callError : "?");
    free(callError);
    if (!ok) return;
    unsigned general = 0;
    for (unsigned i = 0; i < count; i++) {
        char kind = PETypeGetEncoding(PESignatureGetArgument(sig, i))[0];
        if (kind == 'd' || kind == 'f') continue;     /* floating-point registers: the shape cases check them */
        uintptr_t raw = spiedGeneral[general++];
        uint32_t expected = extended32(kind, *(uintptr_t *)storage[i]);     /* reads the value's own low bytes */
        acCheck((uint32_t)raw == expected, what, "argument %u (%c) arrived as %#llx, its low 32 bits should be %#x",
                i, kind, (unsigned long long)raw, expected);
    }
}

static char *blockSeen;
static void recordingBlockHandler(uintptr_t token, PEFrame *frame) {
    acDigestBegin();
    for (unsigned i = 1; i < PESignatureGetArgumentCount(frame->signature); i++)
        acDigestArgument(PETypeGetEncoding(PESignatureGetArgument(frame->signature, i)), frame->arguments[i]);
    (void)acDigestEnd();
    free(blockSeen);
    blockSeen = acCopyLastDigest();
    const PEType *rt = PESignatureGetReturnType(frame->signature);
    /* A negative narrow result: its extension is what the caller checks. */
    if (PETypeGetKind(rt) == PETypeKindChar) *(int8_t *)frame->returnValue = (int8_t)token;
    else if (PETypeGetKind(rt) == PETypeKindShort) *(int16_t *)frame->returnValue = (int16_t)token;
    else if (PETypeGetKind(rt) == PETypeKindUChar) *(uint8_t *)frame->returnValue = (uint8_t)token;
    else if (PETypeGetKind(rt) == PETypeKindDouble) *(double *)frame->returnValue = (double)(int8_t)token;
}
static void ignoreDispose(uintptr_t token) { (void)token; }

/* Engine blocks called with garbage above each narrow argument: register-only and mixed entries. */
static void calleeIgnoresUpperBits(void) {
    const uintptr_t garbage = 0x5a5a5a5a5a5a5a00ULL;
    const char *error = NULL;
    char *createError = NULL;
    /* Register-only: the block, then int8, uint8, int16, uint16, int32; returns int8. */
    void *block = PEBlockCreate(PESignatureParse("c@?cCsSi", &error), (uintptr_t)(int8_t)-7, &createError);
    acCheck(block != NULL, "register entry with dirty registers", "no block: %s", createError ? createError : "?");
    if (block) {
        uintptr_t (*invoke)(void *, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t) = PEBlockGetInvokeFunction(block);
        uintptr_t result = invoke(block, garbage | 0xfe, garbage | 0x81, (garbage & ~0xffffULL) | 0x8001,
                                  (garbage & ~0xffffULL) | 0xfffe, 0xdeadbeef80000001ULL);
        acCheckEqual("register entry with dirty registers: arguments", "c-2 C129 s-32767 S65534 i-2147483647", blockSeen);
        acCheck((uint32_t)result == (uint32_t)-7, "register entry: narrow result extended to 32 bits",
                "returned %#llx", (unsigned long long)result);
        PEBlockRelease(block);
    }
    /* Mixed: the block, int8, double, uint16, float; returns int16. */
    block = PEBlockCreate(PESignatureParse("s@?cdSf", &error), (uintptr_t)(int16_t)-300, &createError);
    acCheck(block != NULL, "mixed entry with dirty registers", "no block: %s", createError ? createError : "?");
    if (block) {
        uintptr_t (*invoke)(void *, uintptr_t, double, uintptr_t, float) = PEBlockGetInvokeFunction(block);
        uintptr_t result = invoke(block, garbage | 0x80, 2.5, (garbage & ~0xffffULL) | 0x8000, -0.5f);
        acCheckEqual("mixed entry with dirty registers: arguments", "c-128 d0x1.4p+1 S32768 f-0x1p-1", blockSeen);
        acCheck((uint32_t)result == (uint32_t)-300, "mixed entry: narrow result extended to 32 bits",
                "returned %#llx", (unsigned long long)result);
        PEBlockRelease(block);
    }
    free(createError);
}

/* Engine blocks are heap blocks: with GNUstep-base's _Block_copy bound ahead of the Blocks
   runtime's, a "copy" is the creator's stack frame (the first bug this check found). */
static void engineBlocksLiveOnTheHeap(void) {
    const char *error = NULL;
    char *createError = NULL;
    int local = 0;
    void *block = PEBlockCreate(PESignatureParse("v@?", &error), 1, &createError);
    uintptr_t distance = block ? (uintptr_t)block > (uintptr_t)&local ? (uintptr_t)block - (uintptr_t)&local
                                                                     : (uintptr_t)&local - (uintptr_t)block : 0;
    acCheck(block != NULL && distance > 65536, "engine block on the heap",
            "block %p, %s (a local is at %p)", block, createError ? createError : "made", (void *)&local);
    if (block) PEBlockRelease(block);
    free(createError);
}

/* Linked with GNUstep-base ahead of the Blocks runtime (run.sh's second link): its _Block_copy,
   which copies no clang block, is the one bound, and PEBlockCreate must refuse with its message
   instead of handing out its own stack frame. */
void acRunForeignBlockCopyCase(void) {
    int captured = 1;
    void (^onStack)(void) = ^{ (void)captured; };
    void *copy = _Block_copy((const void *)onStack);
    acCheck(copy == (void *)onStack, "foreign _Block_copy bound", "the bound _Block_copy copied (%p from %p): this link "
            "does not reproduce the case", copy, (void *)onStack);
    const char *error = NULL;
    char *createError = NULL;
    void *block = PEBlockCreate(PESignatureParse("v@?", &error), 1, &createError);
    acCheck(!block && createError && strstr(createError, "does not copy blocks"), "engine block refused under a foreign _Block_copy",
            "block %p, %s", block, createError ? createError : "no message");
    free(createError);
}

void acRunRegisterRuleCases(void) {
    PESetBlockHandlers(recordingBlockHandler, ignoreDispose);
    acTrace("register rules");
    engineBlocksLiveOnTheHeap();
    callerExtendsNarrowArguments("vcCsSBi");
    callerExtendsNarrowArguments("vcdCsSB");
    callerExtendsNarrowArguments("vsdcfC");
    calleeIgnoresUpperBits();
}
