#ifndef PE_TYPE_ENCODING_H
#define PE_TYPE_ENCODING_H
/* Parsed Objective-C type encodings. Plain C so Swift can read them on Linux.
   Parsed types and signatures are interned for the life of the process: callers never free them. */
#include <stddef.h>
#include <stdbool.h>

/* Limits on every type string the parsers accept (encodings from the runtime and from scripts:
   defineStruct, block and protocol type lists, method signatures). Past one, parsing fails with
   a message saying which: nothing recurses, overflows or allocates without bound. */
#define PE_TYPE_MAX_NESTING 32              /* structs, unions, arrays and pointers inside each other */
#define PE_TYPE_MAX_SIZE 65536              /* bytes of one type */
#define PE_TYPE_MAX_ELEMENTS 65536          /* scalar elements of one type, arrays expanded */
#define PE_TYPE_MAX_ENCODING_LENGTH 16384   /* characters of one encoding or signature */

typedef enum PETypeKind {
    PETypeKindVoid = 'v',
    PETypeKindChar = 'c', PETypeKindUChar = 'C',
    PETypeKindShort = 's', PETypeKindUShort = 'S',
    PETypeKindInt = 'i', PETypeKindUInt = 'I',
    PETypeKindLong = 'l', PETypeKindULong = 'L',
    PETypeKindLongLong = 'q', PETypeKindULongLong = 'Q',
    PETypeKindFloat = 'f', PETypeKindDouble = 'd',
    PETypeKindBool = 'B',
    PETypeKindObject = '@',
    PETypeKindBlock = '?',      /* "@?" */
    PETypeKindClass = '#',
    PETypeKindSelector = ':',
    PETypeKindCString = '*',
    PETypeKindPointer = '^',
    PETypeKindStruct = '{',
    PETypeKindUnion = '(',
    PETypeKindArray = '[',
} PETypeKind;

typedef struct PEType PEType;
typedef struct PESignature PESignature;

PETypeKind PETypeGetKind(const PEType *type);
size_t PETypeGetSize(const PEType *type);
size_t PETypeGetAlignment(const PEType *type);
/* The encoding of this type alone, without qualifiers or offsets ("{_NSRange=QQ}"). */
const char *PETypeGetEncoding(const PEType *type);
/* Struct or union tag ("_NSRange"); "" when anonymous or not a struct. */
const char *PETypeGetName(const PEType *type);
/* Struct/union fields, array element (count = element count). */
unsigned PETypeGetFieldCount(const PEType *type);
const PEType *PETypeGetField(const PEType *type, unsigned index);
size_t PETypeGetFieldOffset(const PEType *type, unsigned index);
/* Pointee of '^' (NULL for "^v" / "^?"). */
const PEType *PETypeGetPointee(const PEType *type);
/* Object class name from @"Name" encodings, or NULL. */
const char *PETypeGetClassName(const PEType *type);

/* Parses one type; NULL with *error set (static string) when the encoding is invalid or unsupported. */
const PEType *PETypeParse(const char *encoding, const char **error);

/* A method (self, _cmd, args...) or block (block, args...) signature. */
const PESignature *PESignatureParse(const char *types, const char **error);
/* Builds "ret@:args" from comma-separated C-ish type names ("void, int, id") as JSPatch's block() takes them. */
const PESignature *PESignatureFromTypeList(const char *list, bool isBlock, const char **error);
/* The same for a C function: no implicit arguments. */
const PESignature *PEFunctionSignatureFromTypeList(const char *list, const char **error);
const PEType *PESignatureGetReturnType(const PESignature *sig);
unsigned PESignatureGetArgumentCount(const PESignature *sig);
const PEType *PESignatureGetArgument(const PESignature *sig, unsigned index);
/* The normalised encoding without offsets or qualifiers ("i@:i"). */
const char *PESignatureGetEncoding(const PESignature *sig);
/* The same with every "@?" written as "^v": what NSMethodSignature can parse (GNUstep rejects "@?"),
   and a block is moved as a pointer, never retained as an object (blocks are not objects on GCC's runtime). */
const char *PESignatureGetRuntimeEncoding(const PESignature *sig);
/* Total size of the argument storage (each argument aligned), for frame allocation. */
size_t PESignatureGetFrameSize(const PESignature *sig);
size_t PESignatureGetArgumentOffset(const PESignature *sig, unsigned index);
/* Whether a call can pass every part of this signature (libffi's rules, kept where libffi is
   absent: no unions, bit-fields or bare arrays). */
bool PESignatureIsCallable(const PESignature *sig);

#endif
