/* Parser for Objective-C type encodings, with layouts computed by the C ABI rules and
   matching libffi types (where libffi exists), interned so that every caller shares one parse
   per encoding. */
#include "PEInternal.h"
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <ctype.h>

static pthread_mutex_t internLock = PTHREAD_MUTEX_INITIALIZER;

/* A tiny open-addressing-free intern table: a linked list per bucket keyed by the source string. */
typedef struct InternEntry { char *key; const void *value; struct InternEntry *next; } InternEntry;
#define INTERN_BUCKETS 1024
static InternEntry *typeTable[INTERN_BUCKETS], *sigTable[INTERN_BUCKETS];

static unsigned hashString(const char *s) {
    unsigned h = 2166136261u;
    while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; }
    return h % INTERN_BUCKETS;
}
static const void *internLookup(InternEntry **table, const char *key) {
    for (InternEntry *e = table[hashString(key)]; e; e = e->next)
        if (strcmp(e->key, key) == 0) return e->value;
    return NULL;
}
static void internStore(InternEntry **table, const char *key, const void *value) {
    InternEntry *e = malloc(sizeof *e);
    e->key = strdup(key); e->value = value;
    unsigned h = hashString(key);
    e->next = table[h]; table[h] = e;
}

static const char *skipQualifiers(const char *p) {
    while (*p && strchr("rnNoORVA", *p)) p++;
    return p;
}
static const char *skipDigits(const char *p) {
    if (*p == '-') p++;
    while (isdigit((unsigned char)*p)) p++;
    return p;
}

static size_t alignUp(size_t v, size_t a) { return a ? (v + a - 1) / a * a : v; }

/* Errors past the limits in PETypeEncoding.h. They are never taken back (an unparsable pointee
   otherwise makes an opaque pointer). */
static const char *const nestingError = "type nested too deeply (more than 32 levels)";
static const char *const sizeError = "type too large (more than 65536 bytes or 65536 elements)";
static const char *const lengthError = "type encoding too long (more than 16384 characters)";
static const char *const negativeCountError = "negative array count";

static bool isLimitError(const char *error) {
    return error == nestingError || error == sizeError || error == lengthError || error == negativeCountError;
}

static bool withinLimits(size_t size, size_t elements) {
    return size <= PE_TYPE_MAX_SIZE && elements <= PE_TYPE_MAX_ELEMENTS;
}

static bool tooLong(const char *encoding) {
    return strnlen(encoding, PE_TYPE_MAX_ENCODING_LENGTH + 1) > PE_TYPE_MAX_ENCODING_LENGTH;
}

#if PE_HAS_LIBFFI
bool PEUsesLibFFI(void) {
    static int state;       /* 0 unknown, 1 used, 2 turned off */
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (!s) {
        const char *off = getenv("PATCHENGINE_WITHOUT_LIBFFI");
        s = off && *off && strcmp(off, "0") != 0 ? 2 : 1;
        __atomic_store_n(&state, s, __ATOMIC_RELAXED);
    }
    return s == 1;
}
#define PE_FFI(t) (&(t))
#else
#define PE_FFI(t) NULL
#endif

/* `callable`: whether the type can be passed in a call, by libffi's rules (where libffi is not
   there, NSInvocation and register calls take the same set). */
static PEType *newType(PETypeKind kind, size_t size, bool callable, void *ffi) {
    PEType *t = calloc(1, sizeof *t);
    t->kind = kind; t->size = size; t->alignment = size ? size : 1; t->callable = callable; t->elements = 1;
#if PE_HAS_LIBFFI
    t->ffi = ffi;
#else
    (void)ffi;
#endif
    return t;
}

/* Parses one type starting at *cursor (qualifiers already skipped), advancing *cursor. `depth`
   counts the structs, unions, arrays and pointers around it. */
static PEType *parseType(const char **cursor, const char **error, bool inAggregate, unsigned depth);

static PEType *parseAggregate(const char **cursor, const char **error, char open, char close, unsigned depth) {
    const char *p = *cursor + 1;
    const char *nameStart = p;
    while (*p && *p != '=' && *p != close) {
        if (*p == open) { *error = "nested aggregate in name"; return NULL; }
        p++;
    }
    if (!*p) { *error = "unterminated struct or union encoding"; return NULL; }
    PEType *t = newType(open == '{' ? PETypeKindStruct : PETypeKindUnion, 0, false, NULL);
    t->name = strndup(nameStart, (size_t)(p - nameStart));
    if (strcmp(t->name, "?") == 0) { free(t->name); t->name = strdup(""); }
    const PEType *fields[256]; unsigned count = 0;
    if (*p == '=') {
        p++;
        while (*p && *p != close) {
            if (*p == '"') {                 /* field name, as in {Foo="x"i"y"d} */
                p = strchr(p + 1, '"');
                if (!p) { *error = "unterminated field name"; return NULL; }
                p++; continue;
            }
            if (count == 256) { *error = "too many struct fields"; return NULL; }
            const PEType *f = parseType(&p, error, true, depth + 1);
            if (!f) return NULL;
            fields[count++] = f;
        }
    }
    size_t total = 0, elements = 0;
    for (unsigned i = 0; i < count; i++) {
        /* Each field is within the limits, so these sums can't overflow before the check. */
        total = open == '{' ? total + fields[i]->size : (fields[i]->size > total ? fields[i]->size : total);
        elements += fields[i]->elements;
        if (!withinLimits(total, elements)) { *error = sizeError; return NULL; }
    }
    t->elements = elements ? elements : 1;
    if (*p != close) { *error = "unterminated struct or union encoding"; return NULL; }
    p++;
    t->fieldCount = count;
    t->fields = malloc(sizeof(PEType *) * (count ? count : 1));
    t->offsets = malloc(sizeof(size_t) * (count ? count : 1));
    size_t size = 0, align = 1;
    bool callable = count > 0 && t->kind == PETypeKindStruct;
    for (unsigned i = 0; i < count; i++) {
        t->fields[i] = fields[i];
        size_t a = fields[i]->alignment;
        if (a > align) align = a;
        if (t->kind == PETypeKindStruct) {
            size = alignUp(size, a);
            t->offsets[i] = size;
            size += fields[i]->size;
        } else {
            t->offsets[i] = 0;
            if (fields[i]->size > size) size = fields[i]->size;
        }
        if (!fields[i]->callable) callable = false;
    }
    t->alignment = align;
    t->size = alignUp(size, align);
    if (!withinLimits(t->size, t->elements)) { *error = sizeError; return NULL; }
    t->callable = callable;
#if PE_HAS_LIBFFI
    if (callable) {
        /* Arrays inside structs are flattened into repeated elements, as libffi expects. */
        unsigned n = 0;
        for (unsigned i = 0; i < count; i++)
            n += fields[i]->kind == PETypeKindArray ? fields[i]->fieldCount : 1;
        ffi_type *ft = calloc(1, sizeof(ffi_type));
        ft->type = FFI_TYPE_STRUCT;
        ft->elements = calloc(n + 1, sizeof(ffi_type *));
        unsigned k = 0;
        for (unsigned i = 0; i < count; i++) {
            if (fields[i]->kind == PETypeKindArray)
                for (unsigned j = 0; j < fields[i]->fieldCount; j++) ft->elements[k++] = fields[i]->fields[0]->ffi;
            else
                ft->elements[k++] = fields[i]->ffi;
        }
        t->ffi = ft;
    }
#endif
    *cursor = p;
    return t;
}

static PEType *parseType(const char **cursor, const char **error, bool inAggregate, unsigned depth) {
    const char *p = skipQualifiers(*cursor);
    const char *start = p;
    PEType *t = NULL;
    if (depth >= PE_TYPE_MAX_NESTING && (*p == '{' || *p == '(' || *p == '[' || *p == '^')) {
        *error = nestingError;
        return NULL;
    }
    switch (*p) {
#define SCALAR(ch, ctype, fft) case ch: t = newType((PETypeKind)ch, sizeof(ctype), true, PE_FFI(fft)); p++; break;
        SCALAR('c', char, ffi_type_schar)
        SCALAR('C', unsigned char, ffi_type_uchar)
        SCALAR('s', short, ffi_type_sshort)
        SCALAR('S', unsigned short, ffi_type_ushort)
        SCALAR('i', int, ffi_type_sint)
        SCALAR('I', unsigned int, ffi_type_uint)
        /* `l` / `L`: the runtime's width (PEPlatform.h). */
        case 'l':
            t = newType(PETypeKindLong, sizeof(PE_ENCODED_LONG), true,
                        sizeof(PE_ENCODED_LONG) == 8 ? PE_FFI(ffi_type_sint64) : PE_FFI(ffi_type_sint32));
            p++; break;
        case 'L':
            t = newType(PETypeKindULong, sizeof(PE_ENCODED_ULONG), true,
                        sizeof(PE_ENCODED_ULONG) == 8 ? PE_FFI(ffi_type_uint64) : PE_FFI(ffi_type_uint32));
            p++; break;
        SCALAR('q', long long, ffi_type_sint64)
        SCALAR('Q', unsigned long long, ffi_type_uint64)
        SCALAR('f', float, ffi_type_float)
        SCALAR('d', double, ffi_type_double)
        SCALAR('B', _Bool, ffi_type_uchar)
        SCALAR('#', void *, ffi_type_pointer)
        SCALAR(':', void *, ffi_type_pointer)
        SCALAR('*', char *, ffi_type_pointer)
#undef SCALAR
        case 'v':
            t = newType(PETypeKindVoid, 0, true, PE_FFI(ffi_type_void)); t->alignment = 1; p++; break;
        case '@':
            p++;
            if (*p == '?') {
                t = newType(PETypeKindBlock, sizeof(void *), true, PE_FFI(ffi_type_pointer));
                p++;
                if (*p == '<') {            /* extended block signature @?<v@?i> */
                    int depth = 0;
                    do { if (*p == '<') depth++; else if (*p == '>') depth--; p++; } while (*p && depth > 0);
                }
            } else {
                t = newType(PETypeKindObject, sizeof(void *), true, PE_FFI(ffi_type_pointer));
                if (*p == '"') {
                    const char *end = strchr(p + 1, '"');
                    if (end) {
                        t->className = strndup(p + 1, (size_t)(end - p - 1));
                        p = end + 1;
                    }
                }
            }
            break;
        case '^': {
            p++;
            t = newType(PETypeKindPointer, sizeof(void *), true, PE_FFI(ffi_type_pointer));
            if (*p == 'v') { p++; }
            else if (*p == '?') { p++; }
            else {
                const PEType *pointee = parseType(&p, error, inAggregate, depth + 1);
                if (!pointee && isLimitError(*error)) return NULL;
                /* A pointer to something we can't lay out is still a valid opaque pointer. */
                if (!pointee) {
                    *error = NULL;
                    /* skip the unparsable pointee conservatively */
                    if (*p == '{' || *p == '(') {
                        char open = *p, close = open == '{' ? '}' : ')'; int depth = 0;
                        do { if (*p == open) depth++; else if (*p == close) depth--; p++; } while (*p && depth > 0);
                    } else if (*p) p++;
                }
                t->pointee = pointee;
            }
            break;
        }
        case '?':                       /* function pointer or unknown: only valid behind '^' */
            t = newType(PETypeKindPointer, sizeof(void *), true, PE_FFI(ffi_type_pointer)); p++; break;
        case '{':
            t = parseAggregate(&p, error, '{', '}', depth);
            if (!t) return NULL;
            break;
        case '(':
            t = parseAggregate(&p, error, '(', ')', depth);
            if (!t) return NULL;
            break;
        case '[': {
            p++;
            if (*p == '-') { *error = negativeCountError; return NULL; }
            /* The count saturates past the limit instead of overflowing. */
            size_t n = 0;
            for (; isdigit((unsigned char)*p); p++)
                if (n <= PE_TYPE_MAX_ELEMENTS) n = n * 10 + (size_t)(*p - '0');
            if (n > PE_TYPE_MAX_ELEMENTS) { *error = sizeError; return NULL; }
            const PEType *element = parseType(&p, error, true, depth + 1);
            if (!element) return NULL;
            if (*p != ']') { *error = "unterminated array encoding"; return NULL; }
            p++;
            size_t elements = element->elements * (n ? n : 1);
            if (!withinLimits(element->size * n, elements)) { *error = sizeError; return NULL; }
            t = newType(PETypeKindArray, element->size * n, element->callable, NULL);
            t->elements = elements;
            t->alignment = element->alignment;
            t->fieldCount = (unsigned)n;
            t->fields = malloc(sizeof(PEType *)); t->fields[0] = element;
            t->offsets = malloc(sizeof(size_t)); t->offsets[0] = 0;
            /* Arrays are only passed inside structs, where libffi wants the element type repeated. */
#if PE_HAS_LIBFFI
            t->ffi = element->ffi;
#endif
            break;
        }
        case 'b': *error = "bit-field types are not supported"; return NULL;
        case 'D': *error = "long double is not supported"; return NULL;
        case 'j': *error = "complex types are not supported"; return NULL;
        case '\0': *error = "empty type encoding"; return NULL;
        default: *error = "unknown type encoding character"; return NULL;
    }
    t->encoding = strndup(start, (size_t)(p - start));
    if (!t->name) t->name = strdup("");
    *cursor = p;
    return t;
}

const PEType *PETypeParse(const char *encoding, const char **error) {
    const char *dummy = NULL; if (!error) error = &dummy;
    *error = NULL;
    if (!encoding) { *error = "no type encoding"; return NULL; }
    if (tooLong(encoding)) { *error = lengthError; return NULL; }
    pthread_mutex_lock(&internLock);
    const PEType *t = internLookup(typeTable, encoding);
    if (!t) {
        const char *p = encoding;
        t = parseType(&p, error, false, 0);
        if (t) internStore(typeTable, encoding, t);
    }
    pthread_mutex_unlock(&internLock);
    return t;
}

static const PESignature *buildSignature(const char *types, const char **error) {
    const char *p = types;
    const PEType *parts[64]; unsigned count = 0;
    while (*p) {
        p = skipQualifiers(p);
        if (!*p) break;
        if (count == 64) { *error = "too many arguments"; return NULL; }
        const PEType *t = parseType(&p, error, false, 0);
        if (!t) return NULL;
        parts[count++] = t;
        p = skipDigits(p);
    }
    if (count == 0) { *error = "empty signature"; return NULL; }
    PESignature *sig = calloc(1, sizeof *sig);
    sig->returnType = parts[0];
    sig->argumentCount = count - 1;
    sig->arguments = malloc(sizeof(PEType *) * count);
    sig->argumentOffsets = malloc(sizeof(size_t) * count);
    size_t enc = 0, frame = 0;
    for (unsigned i = 0; i < count; i++) enc += strlen(parts[i]->encoding);
    sig->encoding = calloc(enc + 1, 1);
    sig->runtimeEncoding = calloc(enc * 2 + 1, 1);
    bool callable = parts[0]->callable;
    for (unsigned i = 0; i < count; i++) {
        strcat(sig->encoding, parts[i]->encoding);
        /* NSInvocation would retain an "@" value, but blocks are not objects on GCC's runtime. */
        strcat(sig->runtimeEncoding, parts[i]->kind == PETypeKindBlock ? "^v" : parts[i]->encoding);
        if (i > 0) {
            sig->arguments[i - 1] = parts[i];
            if (parts[i]->kind == PETypeKindVoid) { *error = "void argument"; return NULL; }
            frame = alignUp(frame, parts[i]->alignment < 8 ? 8 : parts[i]->alignment);
            sig->argumentOffsets[i - 1] = frame;
            frame += parts[i]->size;
            if (!parts[i]->callable || parts[i]->kind == PETypeKindArray) callable = false;
        }
    }
    if (parts[0]->kind == PETypeKindArray) callable = false;
    sig->registerOnly = count - 1 <= 6;
    for (unsigned i = 0; i < count && sig->registerOnly; i++) {
        switch (parts[i]->kind) {
            case PETypeKindFloat: case PETypeKindDouble: case PETypeKindStruct: case PETypeKindUnion:
            case PETypeKindArray: sig->registerOnly = false; break;
            case PETypeKindVoid: sig->registerOnly = i == 0; break;
            default: sig->registerOnly = parts[i]->size <= sizeof(void *); break;
        }
    }
    sig->frameSize = alignUp(frame, 16);
    sig->callable = callable;
#if PE_HAS_LIBFFI
    if (callable) {
        sig->ffiArgs = malloc(sizeof(ffi_type *) * (sig->argumentCount ? sig->argumentCount : 1));
        for (unsigned i = 0; i < sig->argumentCount; i++) sig->ffiArgs[i] = sig->arguments[i]->ffi;
        sig->ffiPrepared = ffi_prep_cif(&sig->cif, FFI_DEFAULT_ABI, sig->argumentCount, sig->returnType->ffi, sig->ffiArgs) == FFI_OK;
        if (!sig->ffiPrepared) sig->callable = false;
    }
#endif
    PESignatureLayOutMixedRegisters(sig);
    return sig;
}

const PESignature *PESignatureParse(const char *types, const char **error) {
    const char *dummy = NULL; if (!error) error = &dummy;
    *error = NULL;
    if (!types) { *error = "no type encoding"; return NULL; }
    if (tooLong(types)) { *error = lengthError; return NULL; }
    pthread_mutex_lock(&internLock);
    const PESignature *sig = internLookup(sigTable, types);
    if (!sig) {
        sig = buildSignature(types, error);
        if (sig) internStore(sigTable, types, sig);
    }
    pthread_mutex_unlock(&internLock);
    return sig;
}

/* C type names accepted by block("...") and defineProtocol, mapped to encodings. A composed
   encoding (a pointer's) is written into `out`. */
static const char *encodingForTypeName(const char *name, char *out, size_t size) {
    static const struct { const char *name, *enc; } map[] = {
        {"void", "v"}, {"id", "@"}, {"NSObject*", "@"}, {"BOOL", "B"}, {"bool", "B"},
        {"char", "c"}, {"unsigned char", "C"}, {"short", "s"}, {"unsigned short", "S"},
        {"int", "i"}, {"unsigned int", "I"}, {"unsigned", "I"}, {"long", PE_ENCODING_C_LONG}, {"unsigned long", PE_ENCODING_C_ULONG},
        {"long long", "q"}, {"unsigned long long", "Q"}, {"float", "f"}, {"double", "d"},
        {"CGFloat", "d"}, {"NSInteger", "q"}, {"NSUInteger", "Q"}, {"int64_t", "q"}, {"uint64_t", "Q"},
        {"int32_t", "i"}, {"uint32_t", "I"}, {"size_t", "Q"},
        {"SEL", ":"}, {"Class", "#"}, {"char*", "*"}, {"const char*", "*"}, {"void*", "^v"},
        {"block", "@?"}, {"id<block>", "@?"}, {"NSBlock*", "@?"},
        {"CGRect", PE_ENCODING_CGRECT}, {"NSRect", PE_ENCODING_CGRECT},
        {"CGPoint", PE_ENCODING_CGPOINT}, {"NSPoint", PE_ENCODING_CGPOINT},
        {"CGSize", PE_ENCODING_CGSIZE}, {"NSSize", PE_ENCODING_CGSIZE},
        {"NSRange", PE_ENCODING_NSRANGE},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i].name, name) == 0) return map[i].enc;
    size_t n = strlen(name);
    /* A struct encoding ("{CGSize=dd}"): the engine writes these for struct names it resolved
       itself (TypeNames.swift); the signature parser checks them. */
    if (n > 2 && name[0] == '{' && name[n - 1] == '}' && strchr(name, '=')) return name;
    if (n > 1 && n <= 128 && name[n - 1] == '*' && size > 1) {
        /* `T *`: an object when T names no type (a class: NSString*, NSArray* ...), else a
           pointer to T (`BOOL *stop` of an enumeration block, `NSError **`, `CGRect *`). Read as
           an object, such a pointer was boxed as one and its first message crashed. */
        char stem[128];
        memcpy(stem, name, n - 1);
        stem[n - 1] = 0;
        const char *pointee = encodingForTypeName(stem, out + 1, size - 1);
        if (!pointee) return "@";
        size_t length = strlen(pointee);
        if (length + 2 > size) return NULL;
        memmove(out + 1, pointee, length + 1);
        out[0] = '^';
        return out;
    }
    return NULL;
}

static const PESignature *signatureFromTypeList(const char *list, const char *implicit, const char **error);

const PESignature *PESignatureFromTypeList(const char *list, bool isBlock, const char **error) {
    return signatureFromTypeList(list, isBlock ? "@?" : "@:", error);
}

const PESignature *PEFunctionSignatureFromTypeList(const char *list, const char **error) {
    return signatureFromTypeList(list, "", error);
}

static const PESignature *signatureFromTypeList(const char *list, const char *implicit, const char **error) {
    const char *dummy = NULL; if (!error) error = &dummy;
    *error = NULL;
    char buffer[1024]; size_t used = 0; buffer[0] = 0;
    const char *p = list; unsigned index = 0;
    while (1) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[128]; size_t k = 0;
        if (len >= sizeof name * 4) { *error = "type name too long in type list"; return NULL; }
        /* Normalise spacing: trim, drop spaces before '*'. */
        for (size_t i = 0; i < len && k < sizeof name - 1; i++) {
            char c = p[i];
            if (isspace((unsigned char)c)) {
                if (k == 0 || name[k - 1] == ' ') continue;
                size_t j = i; while (j < len && isspace((unsigned char)p[j])) j++;
                if (j < len && p[j] == '*') continue;
                c = ' ';
            }
            name[k++] = c;
        }
        while (k > 0 && name[k - 1] == ' ') k--;
        if (k == sizeof name - 1) { *error = "type name too long in type list"; return NULL; }
        name[k] = 0;
        const char *enc = NULL;
        if (k == 0 && index == 0 && !end) enc = "v";
        char composed[256];
        if (k > 0 && !enc) enc = encodingForTypeName(name, composed, sizeof composed);
        if (!enc) {
            *error = k == 0 ? "empty type name in type list" : "unknown type name in type list";
            return NULL;
        }
        size_t el = strlen(enc);
        if (used + el + 4 >= sizeof buffer) { *error = "type list too long"; return NULL; }
        memcpy(buffer + used, enc, el); used += el;
        if (index == 0) {
            size_t il = strlen(implicit);
            memcpy(buffer + used, implicit, il); used += il;
        }
        buffer[used] = 0;
        index++;
        if (!end) break;
        p = end + 1;
    }
    return PESignatureParse(buffer, error);
}

PETypeKind PETypeGetKind(const PEType *t) { return t->kind; }
size_t PETypeGetSize(const PEType *t) { return t->size; }
size_t PETypeGetAlignment(const PEType *t) { return t->alignment; }
const char *PETypeGetEncoding(const PEType *t) { return t->encoding; }
const char *PETypeGetName(const PEType *t) { return t->name; }
unsigned PETypeGetFieldCount(const PEType *t) { return t->fieldCount; }
const PEType *PETypeGetField(const PEType *t, unsigned i) { return i < t->fieldCount ? t->fields[t->kind == PETypeKindArray ? 0 : i] : NULL; }
size_t PETypeGetFieldOffset(const PEType *t, unsigned i) {
    if (t->kind == PETypeKindArray) return t->fields[0]->size * i;
    return i < t->fieldCount ? t->offsets[i] : 0;
}
const PEType *PETypeGetPointee(const PEType *t) { return t->pointee; }
const char *PETypeGetClassName(const PEType *t) { return t->className; }

const PEType *PESignatureGetReturnType(const PESignature *s) { return s->returnType; }
unsigned PESignatureGetArgumentCount(const PESignature *s) { return s->argumentCount; }
const PEType *PESignatureGetArgument(const PESignature *s, unsigned i) { return i < s->argumentCount ? s->arguments[i] : NULL; }
const char *PESignatureGetEncoding(const PESignature *s) { return s->encoding; }
const char *PESignatureGetRuntimeEncoding(const PESignature *s) { return s->runtimeEncoding; }
size_t PESignatureGetFrameSize(const PESignature *s) { return s->frameSize; }
size_t PESignatureGetArgumentOffset(const PESignature *s, unsigned i) { return s->argumentOffsets[i]; }
bool PESignatureIsCallable(const PESignature *s) { return s->callable; }
#if PE_HAS_LIBFFI
ffi_cif *PESignatureGetCIF(const PESignature *s) { return s->callable && s->ffiPrepared ? (ffi_cif *)&s->cif : NULL; }
#endif

/* A narrow argument widened the way the callee may expect (sign or zero extension). */
static inline uintptr_t registerValue(const PEType *t, const void *p) {
    switch (t->kind) {
        case PETypeKindChar: return (uintptr_t)(intptr_t)*(const signed char *)p;
        case PETypeKindUChar: case PETypeKindBool: return *(const unsigned char *)p;
        case PETypeKindShort: return (uintptr_t)(intptr_t)*(const short *)p;
        case PETypeKindUShort: return *(const unsigned short *)p;
        case PETypeKindInt: return (uintptr_t)(intptr_t)*(const int *)p;
        case PETypeKindUInt: return *(const unsigned int *)p;
        case PETypeKindLong: return (uintptr_t)(intptr_t)*(const PE_ENCODED_LONG *)p;
        case PETypeKindULong: return (uintptr_t)*(const PE_ENCODED_ULONG *)p;
        default: return *(const uintptr_t *)p;
    }
}

uintptr_t PERegisterValue(const PEType *type, const void *value) { return registerValue(type, value); }

void PERegisterValuesExtend(const PESignature *sig, uintptr_t *values) {
    for (unsigned i = 0; i < sig->argumentCount && i < 6; i++) values[i] = registerValue(sig->arguments[i], &values[i]);
}

bool PECallFunction(void *fn, const PESignature *sig, void **arguments, void *returnValue) {
    if (!sig->registerOnly) {
#if PE_HAS_LIBFFI
        if (PEUsesLibFFI() && sig->callable) {
            ffi_call((ffi_cif *)&sig->cif, (void (*)(void))fn, returnValue, arguments);
            return true;
        }
#endif
        return PEMixedCall(fn, sig, arguments, returnValue);
    }
    /* Extra register arguments are ignored by the callee in both calling conventions. */
    uintptr_t a[6] = { 0, 0, 0, 0, 0, 0 };
    for (unsigned i = 0; i < sig->argumentCount; i++) a[i] = registerValue(sig->arguments[i], arguments[i]);
    uintptr_t r = ((PERegisterFunction)fn)(a[0], a[1], a[2], a[3], a[4], a[5]);
    if (returnValue && sig->returnType->kind != PETypeKindVoid) *(uintptr_t *)returnValue = r;
    return true;
}
