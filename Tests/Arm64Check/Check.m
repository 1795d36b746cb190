/* Sample values, digests and the tally (Check.h). */
#import "Check.h"
#include "PETypeEncoding.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const PEType *typeOf(const char *encoding) {
    const char *error = NULL;
    const PEType *type = PETypeParse(encoding, &error);
    if (!type) { fprintf(stderr, "arm64-check: cannot parse %s: %s\n", encoding, error); abort(); }
    return type;
}

static void sample(const PEType *t, unsigned char *p, unsigned seed) {
    switch (PETypeGetKind(t)) {
        case PETypeKindChar: *(signed char *)p = (signed char)(0x80 | (seed * 7 % 0x7f)); break;
        case PETypeKindUChar: *(unsigned char *)p = (unsigned char)(0x80 | (seed * 11 % 0x7f)); break;
        case PETypeKindBool: *(bool *)p = seed & 1; break;
        case PETypeKindShort: *(short *)p = (short)(0x8000 | (seed * 313 % 0x7fff)); break;
        case PETypeKindUShort: *(unsigned short *)p = (unsigned short)(0x8000 | (seed * 419 % 0x7fff)); break;
        case PETypeKindInt: *(int *)p = (int)(0x80000000u | (seed * 2654435761u % 0x7fffffffu)); break;
        case PETypeKindUInt: *(unsigned *)p = 0x80000000u | (seed * 40503u % 0x7fffffffu); break;
        case PETypeKindLong: case PETypeKindLongLong:
            *(long long *)p = -(long long)(0x100000000ULL * seed + seed * 977); break;
        case PETypeKindULong: case PETypeKindULongLong:
            *(unsigned long long *)p = 0x8000000000000000ULL | (0x100000000ULL * seed + seed * 131); break;
        case PETypeKindFloat: *(float *)p = (float)seed * 0.75f - 3.125f; break;
        case PETypeKindDouble: *(double *)p = (double)seed * 1.25 - 1000.5 + 1.0 / 3.0; break;
        case PETypeKindObject: *(id *)p = [[NSString alloc] initWithFormat:@"object-%u", seed]; break;   /* kept */
        case PETypeKindClass: *(Class *)p = seed & 1 ? [NSString class] : [NSNumber class]; break;
        case PETypeKindSelector: {
            char name[32]; snprintf(name, sizeof name, "selector%u:", seed);
            *(SEL *)p = sel_registerName(name);
            break;
        }
        case PETypeKindCString: {
            char text[32]; snprintf(text, sizeof text, "string-%u", seed);
            *(char **)p = strdup(text);     /* kept */
            break;
        }
        case PETypeKindPointer: *(uintptr_t *)p = 0xfeed0000000ULL + seed * 16; break;
        case PETypeKindStruct:
            for (unsigned i = 0; i < PETypeGetFieldCount(t); i++)
                sample(PETypeGetField(t, i), p + PETypeGetFieldOffset(t, i), seed * 31 + i + 1);
            break;
        default: fprintf(stderr, "arm64-check: no sample for %s\n", PETypeGetEncoding(t)); abort();
    }
}

void acSample(const char *encoding, void *value, unsigned seed) {
    const PEType *t = typeOf(encoding);
    memset(value, 0, PETypeGetSize(t));
    sample(t, value, seed);
}

/* Appends to a text of `room` bytes (truncating, never overflowing). */
static void appendf(char *out, size_t room, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void appendf(char *out, size_t room, const char *fmt, ...) {
    size_t used = strlen(out);
    if (used + 1 >= room) return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(out + used, room - used, fmt, args);
    va_end(args);
}

static void format(const PEType *t, const unsigned char *p, char *out, size_t room) {
    switch (PETypeGetKind(t)) {
        case PETypeKindChar: appendf(out, room, "c%d", *(const signed char *)p); break;
        case PETypeKindUChar: appendf(out, room, "C%u", *(const unsigned char *)p); break;
        case PETypeKindBool: appendf(out, room, "B%u", (unsigned)*(const unsigned char *)p); break;
        case PETypeKindShort: appendf(out, room, "s%d", *(const short *)p); break;
        case PETypeKindUShort: appendf(out, room, "S%u", *(const unsigned short *)p); break;
        case PETypeKindInt: appendf(out, room, "i%d", *(const int *)p); break;
        case PETypeKindUInt: appendf(out, room, "I%u", *(const unsigned *)p); break;
        case PETypeKindLong: case PETypeKindLongLong: appendf(out, room, "q%lld", *(const long long *)p); break;
        case PETypeKindULong: case PETypeKindULongLong: appendf(out, room, "Q%llu", *(const unsigned long long *)p); break;
        case PETypeKindFloat: appendf(out, room, "f%a", (double)*(const float *)p); break;
        case PETypeKindDouble: appendf(out, room, "d%a", *(const double *)p); break;
        case PETypeKindObject: {
            id object = *(const id *)p;
            appendf(out, room, "@%s", object ? [[object description] UTF8String] : "nil");
            break;
        }
        case PETypeKindClass: appendf(out, room, "#%s", class_getName(*(const Class *)p)); break;
        case PETypeKindSelector: appendf(out, room, ":%s", sel_getName(*(const SEL *)p)); break;
        case PETypeKindCString: appendf(out, room, "*%s", *(char *const *)p ? *(char *const *)p : "NULL"); break;
        case PETypeKindPointer: appendf(out, room, "^%#llx", (unsigned long long)*(const uintptr_t *)p); break;
        case PETypeKindStruct:
            appendf(out, room, "{");
            for (unsigned i = 0; i < PETypeGetFieldCount(t); i++) {
                if (i) appendf(out, room, ",");
                format(PETypeGetField(t, i), p + PETypeGetFieldOffset(t, i), out, room);
            }
            appendf(out, room, "}");
            break;
        default: appendf(out, room, "?"); break;
    }
}

char *acFormat(const char *encoding, const void *value) {
    char text[1024] = "";
    format(typeOf(encoding), value, text, sizeof text);
    return strdup(text);
}

static char digest[4096], last[4096];
static unsigned argumentIndex;

void acDigestBegin(void) { digest[0] = 0; argumentIndex = 0; }

void acDigestArgument(const char *encoding, const void *value) {
    char *text = acFormat(encoding, value);
    size_t used = strlen(digest);
    snprintf(digest + used, sizeof digest - used, "%s%s", argumentIndex++ ? " " : "", text);
    free(text);
}

unsigned acDigestEnd(void) {
    memcpy(last, digest, sizeof last);
    unsigned hash = 2166136261u;
    for (const char *c = digest; *c; c++) hash = (hash ^ (unsigned char)*c) * 16777619u;
    return hash % 100000;
}

const char *acLastDigest(void) { return last; }
char *acCopyLastDigest(void) { return strdup(last); }

void acTrace(const char *where) {
    static int on = -1;
    if (on < 0) on = getenv("ARM64_CHECK_TRACE") != NULL;
    if (on) fprintf(stderr, "arm64-check: %s\n", where);
}

static unsigned passed, failed;
unsigned acPassed(void) { return passed; }
unsigned acFailed(void) { return failed; }

void acCheck(bool ok, const char *what, const char *detail, ...) {
    if (ok) { passed++; return; }
    failed++;
    va_list args;
    va_start(args, detail);
    printf("FAIL %s: ", what);
    vprintf(detail, args);
    printf("\n");
    va_end(args);
    fflush(stdout);
}

void acCheckEqual(const char *what, const char *expected, const char *actual) {
    bool same = expected && actual && strcmp(expected, actual) == 0;
    acCheck(same, what, "expected [%s], got [%s]", expected ? expected : "(nothing)", actual ? actual : "(nothing)");
}
