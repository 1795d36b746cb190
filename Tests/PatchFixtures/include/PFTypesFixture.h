/* PFTypes: one echo method per Objective-C type encoding (c C s S i I l L q Q f d B,
   @ # : * ^, v). Each pf_types_* function creates a PFTypes and calls the method
   natively, returning what that caller received. Unpatched, every echo returns its
   argument unchanged. */
#ifndef PF_TYPES_FIXTURE_H
#define PF_TYPES_FIXTURE_H
#include <stdbool.h>

char pf_types_echo_char(char v);                          /* -echoChar:      c */
unsigned char pf_types_echo_uchar(unsigned char v);       /* -echoUChar:     C (also BOOL here) */
short pf_types_echo_short(short v);                       /* -echoShort:     s */
unsigned short pf_types_echo_ushort(unsigned short v);    /* -echoUShort:    S */
int pf_types_echo_int(int v);                             /* -echoInt:       i */
unsigned int pf_types_echo_uint(unsigned int v);          /* -echoUInt:      I */
long pf_types_echo_long(long v);                          /* -echoLong:      l (encoding set explicitly) */
unsigned long pf_types_echo_ulong(unsigned long v);       /* -echoULong:     L (encoding set explicitly) */
long long pf_types_echo_longlong(long long v);            /* -echoLongLong:  q */
unsigned long long pf_types_echo_ulonglong(unsigned long long v); /* -echoULongLong: Q */
float pf_types_echo_float(float v);                       /* -echoFloat:     f */
double pf_types_echo_double(double v);                    /* -echoDouble:    d */
bool pf_types_echo_bool(bool v);                          /* -echoBool:      B */
/* -echoObject: (@) with the given object; returns the result retained (+1). */
void *pf_types_echo_object(void *object);
/* -echoClass: (#): returns the name of the class received back, or "nil". */
char *pf_types_echo_class(const char *className);
/* -echoSelector: (:): returns the name of the selector received back, or "nil". */
char *pf_types_echo_selector(const char *selectorName);
/* -echoCString: (*): passes a C string, returns a copy of what came back, or NULL. */
char *pf_types_echo_cstring(const char *text);
/* -echoPointer: (^v): passes `pointer`, returns what came back. */
void *pf_types_echo_pointer(void *pointer);
/* -recordVoid: (v) then -lastRecorded: what the void method stored. */
int pf_types_record_void(int v);
/* -manyArgs...: 8 ints and 9 doubles (more than fit in registers). */
double pf_types_many_args(int a, int b, int c, int d, int e, int f, int g, int h,
                          double x, double y, double z, double u, double v, double w,
                          double p, double q, double r);
/* The value the native implementation of -manyArgs... computes for the same input. */
double pf_types_many_args_expected(int a, int b, int c, int d, int e, int f, int g, int h,
                                   double x, double y, double z, double u, double v, double w,
                                   double p, double q, double r);

#endif
