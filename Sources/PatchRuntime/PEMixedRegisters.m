/* Calls and block entries without libffi for signatures beyond the integer registers: every
   argument in a register, integer and floating-point ones counted apart. Both 64-bit conventions
   (x86-64 System V, arm64 AAPCS64 and Apple's variant of it) fill the two register files
   independently and in argument order, so one plain function type — six integer registers, then
   eight doubles — carries any such call: a callee reads the registers its own arguments landed in
   and ignores the rest, and a function of that type, used as a block's invoke function, receives
   every register a caller may have set. A float travels in the low 32 bits of its register; a
   struct of doubles (CGPoint, CGSize; CGRect on arm64) in consecutive floating-point registers, up
   to PE_DOUBLE_AGGREGATE_REGISTERS (PEPlatform.h); a struct of integers of up to 16 bytes
   (NSRange) in consecutive integer registers. Calls (not entries) also take stack arguments where
   the convention makes them simple (PEMixedCallWithStack). Anything else (a struct of mixed
   fields, of floats, more registers than these) is left to libffi, which iOS does not have. */
#include "PEInternal.h"
#include "PEBlocks.h"


/* The number of doubles a struct consists of, nested structs flattened (CGRect: 4); 0 when any
   member is something else. */
static unsigned doubleMembers(const PEType *t) {
    if (t->kind == PETypeKindDouble) return 1;
    if (t->kind != PETypeKindStruct || t->fieldCount == 0) return 0;
    unsigned count = 0;
    for (unsigned i = 0; i < t->fieldCount; i++) {
        unsigned inner = doubleMembers(t->fields[i]);
        if (!inner) return 0;
        count += inner;
    }
    /* Padding or packing would break the register-per-member correspondence. */
    return t->size == count * sizeof(double) ? count : 0;
}

static bool isGeneral(const PEType *t) {
    switch (t->kind) {
        case PETypeKindFloat: case PETypeKindDouble: case PETypeKindStruct: case PETypeKindUnion:
        case PETypeKindArray: case PETypeKindVoid: return false;
        default: return t->size <= sizeof(void *);
    }
}

/* Whether every member of a struct, nested structs flattened, is an integer or a pointer. */
static bool integerMembers(const PEType *t) {
    if (isGeneral(t)) return true;
    if (t->kind != PETypeKindStruct || t->fieldCount == 0) return false;
    for (unsigned i = 0; i < t->fieldCount; i++) if (!integerMembers(t->fields[i])) return false;
    return true;
}

/* The integer registers a struct of integers and pointers of at most 16 bytes takes (NSRange: 2),
   its bytes as they lie in memory, in both conventions; 0 for any other type. */
static unsigned integerWords(const PEType *t) {
    if (t->kind != PETypeKindStruct || t->size == 0 || t->size > 16 || t->alignment > 8 || !integerMembers(t)) return 0;
    return (unsigned)((t->size + 7) / 8);
}

/* The register class of a return type; false when it has none of them. */
static bool returnClass(const PEType *rt, PEMixedReturn *returnClass, unsigned *doubles) {
    *doubles = 0;
    if (rt->kind == PETypeKindVoid || isGeneral(rt)) *returnClass = PEMixedReturnGeneral;
    else if (rt->kind == PETypeKindFloat) *returnClass = PEMixedReturnFloat;
    else if (rt->kind == PETypeKindDouble) *returnClass = PEMixedReturnDouble;
    else if ((*doubles = doubleMembers(rt)) && *doubles <= PE_DOUBLE_AGGREGATE_REGISTERS) *returnClass = PEMixedReturnDoubles;
    else if (integerWords(rt)) *returnClass = PEMixedReturnWords;
    else return false;
    return true;
}

/* The next argument's place, counting the registers used so far; false when it is not a register
   kind (the counts may then exceed the register files: the caller checks). */
static bool placeArgument(const PEType *t, unsigned *general, unsigned *floating, PERegisterPlace *place) {
    unsigned doubles = 0;
    if (isGeneral(t)) {
        *place = (PERegisterPlace){ .floating = false, .index = (unsigned char)*general, .count = 1 };
        *general += 1;
    } else if ((doubles = integerWords(t))) {
        /* Like a struct of doubles: all of it in registers or all of it in memory. */
        *place = (PERegisterPlace){ .floating = false, .index = (unsigned char)*general, .count = (unsigned char)doubles };
        *general += doubles;
    } else if (t->kind == PETypeKindFloat || t->kind == PETypeKindDouble) {
        *place = (PERegisterPlace){ .floating = true, .index = (unsigned char)*floating, .count = 1 };
        *floating += 1;
    } else if ((doubles = doubleMembers(t)) && doubles <= PE_DOUBLE_AGGREGATE_REGISTERS) {
        /* All of it in registers or (both conventions) all of it in memory. */
        *place = (PERegisterPlace){ .floating = true, .index = (unsigned char)*floating, .count = (unsigned char)doubles };
        *floating += doubles;
    } else {
        return false;
    }
    return true;
}

void PESignatureLayOutMixedRegisters(PESignature *sig) {
    sig->mixedRegisters = false;
    if (PE_DOUBLE_AGGREGATE_REGISTERS == 0 || sig->registerOnly || !sig->callable) return;
    PEMixedReturn returnKind;
    unsigned returnDoubles;
    if (!returnClass(sig->returnType, &returnKind, &returnDoubles)) return;
    PERegisterPlace *places = calloc(sig->argumentCount ? sig->argumentCount : 1, sizeof *places);
    unsigned general = 0, floating = 0;
    for (unsigned i = 0; i < sig->argumentCount; i++) {
        if (!placeArgument(sig->arguments[i], &general, &floating, &places[i])
            || general > PE_MIXED_GENERAL || floating > PE_MIXED_FLOATING) {
            free(places);
            return;
        }
    }
    sig->places = places;
    sig->mixedReturn = returnKind;
    sig->mixedReturnDoubles = (unsigned char)returnDoubles;
    sig->mixedRegisters = true;
}

bool PESignatureUsesMixedRegisters(const PESignature *sig) { return sig->mixedRegisters; }

/* The call itself, for each return class: `CALL(type)` calls `fn` cast to a function returning
   `type`, with whatever argument list the caller's macro gives. */
#define PE_CALL_BY_RETURN(returnClassValue, rt, returnValue, CALL) \
    switch (returnClassValue) { \
        case PEMixedReturnGeneral: { \
            uintptr_t r = CALL(uintptr_t); \
            if (returnValue && (rt)->kind != PETypeKindVoid) *(uintptr_t *)(returnValue) = r; \
            break; \
        } \
        case PEMixedReturnDouble: { double r = CALL(double); if (returnValue) memcpy(returnValue, &r, sizeof r); break; } \
        case PEMixedReturnFloat: { float r = CALL(float); if (returnValue) memcpy(returnValue, &r, sizeof r); break; } \
        case PEMixedReturnDoubles: { PEDoubleAggregate r = CALL(PEDoubleAggregate); if (returnValue) memcpy(returnValue, r.d, (rt)->size); break; } \
        case PEMixedReturnWords: { PEWordPair r = CALL(PEWordPair); if (returnValue) memcpy(returnValue, r.w, (rt)->size); break; } \
    }

static void loadRegister(const PEType *t, PERegisterPlace place, const void *value, uintptr_t *g, double *d) {
    if (place.floating) memcpy(&d[place.index], value, t->size);       /* a float: the low 4 bytes */
    else if (t->kind == PETypeKindStruct) memcpy(&g[place.index], value, t->size);
    else g[place.index] = PERegisterValue(t, value);
}

bool PEMixedCall(void *fn, const PESignature *sig, void **arguments, void *returnValue) {
    /* Where named arguments past the registers go in 8-byte slots in order, the stack carries them. */
    if (!sig->mixedRegisters)
        return !PE_VARIADIC_ARGUMENTS_ON_STACK && PEMixedCallWithStack(fn, sig, sig->argumentCount, arguments, returnValue);
    uintptr_t g[PE_MIXED_GENERAL] = { 0 };
    double d[PE_MIXED_FLOATING] = { 0 };
    for (unsigned i = 0; i < sig->argumentCount; i++) loadRegister(sig->arguments[i], sig->places[i], arguments[i], g, d);
#define PE_CALL(type) ((type (*)(PE_MIXED_PARAMETERS))fn)(g[0], g[1], g[2], g[3], g[4], g[5], \
                                                           d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7])
    PE_CALL_BY_RETURN((PEMixedReturn)sig->mixedReturn, sig->returnType, returnValue, PE_CALL)
#undef PE_CALL
    return true;
}

/* Calls with stack arguments: variadic calls (stringWithFormat:) and, where the stack takes them
   in 8-byte slots in order, named arguments past the integer registers and (x86-64) structs over
   16 bytes, which System V copies onto the stack (CGRect) and returns in memory the caller
   provides. The variadic arguments are words
   (objects, integers, pointers) or doubles. At most PE_VARIADIC_STACK_WORDS stack words; passing
   that many every time is harmless: the caller pops them.
   - Apple's arm64 ABI passes every variadic argument on the stack: the fixed ones take their
     registers (the mixed layout), the variadic ones the slots.
   - x86-64 System V and standard AAPCS64 (Linux arm64) pass them as if named: registers, then the
     stack in order. Called through a variadic prototype, so x86-64 also sets %al, the count of
     vector registers a variadic callee's prologue saves. */
#define PE_VARIADIC_STACK_WORDS 16
bool PEMixedCallWithStack(void *fn, const PESignature *sig, unsigned fixedCount, void **arguments, void *returnValue) {
    if (PE_DOUBLE_AGGREGATE_REGISTERS == 0 || !sig->callable || fixedCount > sig->argumentCount) return false;
    PEMixedReturn returnKind;
    unsigned returnDoubles;
    bool knownReturn = returnClass(sig->returnType, &returnKind, &returnDoubles);
    uintptr_t g[PE_MIXED_GENERAL] = { 0 }, s[PE_VARIADIC_STACK_WORDS] = { 0 };
    double d[PE_MIXED_FLOATING] = { 0 };
    unsigned general = 0, floating = 0, stack = 0;
    if (!knownReturn) {
        /* x86-64: a struct over 16 bytes comes back in memory the caller provides, its address
           passed as a hidden first integer argument. */
        const PEType *rt = sig->returnType;
        if (!PE_LARGE_STRUCTS_ON_STACK || rt->kind != PETypeKindStruct || rt->size <= 16 || !returnValue) return false;
        g[general++] = (uintptr_t)returnValue;
        returnKind = PEMixedReturnGeneral;
    }
    for (unsigned i = 0; i < sig->argumentCount; i++) {
        const PEType *t = sig->arguments[i];
        bool variadic = i >= fixedCount;
        if (variadic && PE_VARIADIC_ARGUMENTS_ON_STACK) {
            /* Promoted as C promotes a variadic argument: floats to double, narrow integers to int. */
            if (stack == PE_VARIADIC_STACK_WORDS) return false;
            if (t->kind == PETypeKindDouble) memcpy(&s[stack++], arguments[i], sizeof(double));
            else if (t->kind == PETypeKindFloat) { double wide = *(const float *)arguments[i]; memcpy(&s[stack++], &wide, sizeof wide); }
            else if (isGeneral(t)) s[stack++] = PERegisterValue(t, arguments[i]);
            else return false;
            continue;
        }
        if (variadic && t->kind == PETypeKindFloat) return false;     /* would need promoting in a register */
        if (PE_LARGE_STRUCTS_ON_STACK && t->kind == PETypeKindStruct && t->size > 16 && t->alignment <= 8) {
            size_t words = (t->size + 7) / 8;
            if (stack + words > PE_VARIADIC_STACK_WORDS) return false;
            memcpy(&s[stack], arguments[i], t->size);
            stack += (unsigned)words;
            continue;
        }
        PERegisterPlace place;
        if (!placeArgument(t, &general, &floating, &place) || floating > PE_MIXED_FLOATING) return false;
        if (general > PE_MIXED_GENERAL) {
            /* Past the integer registers: the next stack slot (x86-64, Linux arm64; with eight
               integer registers, arm64 takes the first two of these in x6 and x7, as the callee
               reads them). Named arguments never get here on Apple's arm64 (registers only). */
            if (PE_VARIADIC_ARGUMENTS_ON_STACK || !isGeneral(t) || stack == PE_VARIADIC_STACK_WORDS) return false;
            s[stack++] = PERegisterValue(t, arguments[i]);
            general = PE_MIXED_GENERAL;
            continue;
        }
        loadRegister(t, place, arguments[i], g, d);
    }
#define PE_STACK_WORDS s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10], s[11], s[12], s[13], s[14], s[15]
#if PE_VARIADIC_ARGUMENTS_ON_STACK
#define PE_CALL(type) ((type (*)(PE_MIXED_PARAMETERS, ...))fn)(g[0], g[1], g[2], g[3], g[4], g[5], \
                                                                d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], PE_STACK_WORDS)
#else
#define PE_CALL(type) ((type (*)(uintptr_t, ...))fn)(g[0], g[1], g[2], g[3], g[4], g[5], \
                                                      d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], PE_STACK_WORDS)
#endif
    if (!knownReturn) (void)PE_CALL(uintptr_t);     /* the callee wrote returnValue */
    else PE_CALL_BY_RETURN(returnKind, sig->returnType, returnValue, PE_CALL)
#undef PE_CALL
#undef PE_STACK_WORDS
    return true;
}

void PEMixedArguments(const PESignature *sig, uintptr_t *g, double *d, void **args) {
    for (unsigned i = 0; i < sig->argumentCount; i++) {
        PERegisterPlace place = sig->places[i];
        args[i] = place.floating ? (void *)&d[place.index] : (void *)&g[place.index];
    }
}

/* Block entries: one plain function per return class (the block arrives as the first integer
   argument, so no binding is needed). Each gathers its registers into the frame the engine's
   block handler takes, by the places its block's signature gives. */
static void runFromRegisters(uintptr_t *g, double *d, PEMixedReturnBuffer *ret) {
    void *block = (void *)g[0];
    const PESignature *sig = PEBlockGetSignature(block);
    void *args[PE_MIXED_GENERAL + PE_MIXED_FLOATING];
    PEMixedArguments(sig, g, d, args);
    PEBlockRun(block, args, sig->returnType->kind == PETypeKindVoid ? NULL : ret);
}
#define PE_RUN_BLOCK(g, d, ret) runFromRegisters(g, d, ret)
PE_MIXED_ENTRY_FUNCTIONS(static, Block, PE_RUN_BLOCK)

void *PEMixedBlockEntry(const PESignature *sig) {
    if (!sig->mixedRegisters) return NULL;
    switch ((PEMixedReturn)sig->mixedReturn) {
        case PEMixedReturnGeneral: return (void *)generalEntryBlock;
        case PEMixedReturnDouble: return (void *)doubleEntryBlock;
        case PEMixedReturnFloat: return (void *)floatEntryBlock;
        case PEMixedReturnDoubles: return (void *)doublesEntryBlock;
        case PEMixedReturnWords: return (void *)wordsEntryBlock;
    }
    return NULL;
}
