/* The arm64 check's shared pieces: sample values, digests of what a callee received, and the
   tally. Every path under test reports what it saw as a digest (each argument printed by its
   type, floating-point values exactly with %a), so a value that arrived in the wrong register,
   unextended, truncated or in the wrong struct member shows up as a difference from the digest
   of the same function called directly by compiled code. */
#ifndef ARM64_CHECK_H
#define ARM64_CHECK_H
#import <Foundation/Foundation.h>
#include <stdbool.h>
#include <stdint.h>

/* Structs of the shapes the register paths place (PEMixedRegisters.m): doubles (NSPoint, NSSize,
   NSRect are GNUstep's CGPoint, CGSize, CGRect), integers of up to 16 bytes (NSRange), and
   shapes no register path takes (they must fall back or fail with a message, never be misplaced). */
typedef struct { int32_t a, b; } ACIntPair;                 /* 8 bytes: one register */
typedef struct { int32_t a, b, c; } ACIntTriple;            /* 12 bytes: two registers */
typedef struct { int64_t a; void *b; } ACWordPointer;       /* integer and pointer */
typedef struct { double x; } ACOneDouble;                   /* a homogeneous aggregate of 1 */
typedef struct { double x, y, z; } ACThreeDoubles;          /* of 3 */
typedef struct { int32_t i; double d; } ACIntDouble;        /* mixed: no register path */
typedef struct { float x, y; } ACTwoFloats;                 /* floats: no register path */
typedef struct { double a, b, c, d, e; } ACFiveDoubles;     /* over 4 doubles: by reference on arm64 */

/* A value of the type `encoding` derived from `seed`, with the high bits that catch a missed sign
   or zero extension set (negative signed values, unsigned ones at or over half their range). */
void acSample(const char *encoding, void *value, unsigned seed);

/* The digest being written: begun by a callee (or a handler standing for one), one argument at a
   time, ended with a hash that seeds the callee's return value. */
void acDigestBegin(void);
void acDigestArgument(const char *encoding, const void *value);
unsigned acDigestEnd(void);
/* The last completed digest, and a copy the caller keeps. */
const char *acLastDigest(void);
char *acCopyLastDigest(void);
/* Prints a value of `encoding` (the return values compared). */
char *acFormat(const char *encoding, const void *value);

/* The tally. `acCheck` counts one case: passed when `ok`, else prints the case and the detail. */
void acCheck(bool ok, const char *what, const char *format, ...) __attribute__((format(printf, 3, 4)));
/* Compares two strings for a case (NULL counts as "nothing recorded"). */
void acCheckEqual(const char *what, const char *expected, const char *actual);
unsigned acPassed(void);
/* With ARM64_CHECK_TRACE set, prints where the run is (stderr, unbuffered): a crash then says which case. */
void acTrace(const char *where);
unsigned acFailed(void);

/* The case groups (one file each). */
void acRunShapeCases(void);
void acRunRegisterRuleCases(void);
void acRunVariadicCases(void);
/* Only in the build linked with GNUstep-base's _Block_copy first (ARM64_CHECK_FOREIGN_BLOCK_COPY). */
void acRunForeignBlockCopyCase(void);
#endif
