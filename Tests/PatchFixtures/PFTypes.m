#import "PFSupport.h"
#import "PFTypesFixture.h"
#include <objc/runtime.h>
#include <objc/message.h>

/* Every method returns its argument unchanged, so a patch's effect is visible to a native caller. */
@interface PFTypes : NSObject
{
    int _lastRecorded;
}
- (char)echoChar:(char)v;
- (unsigned char)echoUChar:(unsigned char)v;
- (short)echoShort:(short)v;
- (unsigned short)echoUShort:(unsigned short)v;
- (int)echoInt:(int)v;
- (unsigned int)echoUInt:(unsigned int)v;
- (long long)echoLongLong:(long long)v;
- (unsigned long long)echoULongLong:(unsigned long long)v;
- (float)echoFloat:(float)v;
- (double)echoDouble:(double)v;
- (bool)echoBool:(bool)v;
- (BOOL)echoBOOL:(BOOL)v;
- (id)echoObject:(id)v;
- (Class)echoClass:(Class)v;
- (SEL)echoSelector:(SEL)v;
- (char *)echoCString:(char *)v;
- (void *)echoPointer:(void *)v;
- (void)recordVoid:(int)v;
- (int)lastRecorded;
- (double)manyArgs:(int)a b:(int)b c:(int)c d:(int)d e:(int)e f:(int)f g:(int)g h:(int)h
                 x:(double)x y:(double)y z:(double)z u:(double)u v:(double)v w:(double)w
                 p:(double)p q:(double)q r:(double)r;
@end

/* clang encodes `long` as 'q' on LP64, so -echoLong: / -echoULong: are added with the
   'l' / 'L' encodings explicitly: the engine must handle those letters too. */
static long PFEchoLong(id self, SEL _cmd, long v) { return v; }
static unsigned long PFEchoULong(id self, SEL _cmd, unsigned long v) { return v; }

@implementation PFTypes
+ (void)load
{
    class_addMethod(self, sel_registerName("echoLong:"), (IMP)PFEchoLong, "l@:l");
    class_addMethod(self, sel_registerName("echoULong:"), (IMP)PFEchoULong, "L@:L");
}
- (char)echoChar:(char)v { return v; }
- (unsigned char)echoUChar:(unsigned char)v { return v; }
- (short)echoShort:(short)v { return v; }
- (unsigned short)echoUShort:(unsigned short)v { return v; }
- (int)echoInt:(int)v { return v; }
- (unsigned int)echoUInt:(unsigned int)v { return v; }
- (long long)echoLongLong:(long long)v { return v; }
- (unsigned long long)echoULongLong:(unsigned long long)v { return v; }
- (float)echoFloat:(float)v { return v; }
- (double)echoDouble:(double)v { return v; }
- (bool)echoBool:(bool)v { return v; }
- (BOOL)echoBOOL:(BOOL)v { return v; }
- (id)echoObject:(id)v { return v; }
- (Class)echoClass:(Class)v { return v; }
- (SEL)echoSelector:(SEL)v { return v; }
- (char *)echoCString:(char *)v { return v; }
- (void *)echoPointer:(void *)v { return v; }
- (void)recordVoid:(int)v { _lastRecorded = v; }
- (int)lastRecorded { return _lastRecorded; }
- (double)manyArgs:(int)a b:(int)b c:(int)c d:(int)d e:(int)e f:(int)f g:(int)g h:(int)h
                 x:(double)x y:(double)y z:(double)z u:(double)u v:(double)v w:(double)w
                 p:(double)p q:(double)q r:(double)r
{
    return pf_types_many_args_expected(a, b, c, d, e, f, g, h, x, y, z, u, v, w, p, q, r);
}
@end

/* Weighted so that a swapped or shifted argument changes the result. */
double pf_types_many_args_expected(int a, int b, int c, int d, int e, int f, int g, int h,
                                   double x, double y, double z, double u, double v, double w,
                                   double p, double q, double r)
{
    return a * 1 + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8
         + x * 10 + y * 20 + z * 30 + u * 40 + v * 50 + w * 60 + p * 70 + q * 80 + r * 90;
}

#define PF_ECHO(fn, type, selector)                                      \
type fn(type v)                                                          \
{                                                                        \
    PF_POOL_BEGIN                                                        \
        PFTypes *t = [[PFTypes new] autorelease];                        \
        return [t selector v];                                           \
    PF_POOL_END                                                          \
}

PF_ECHO(pf_types_echo_char, char, echoChar:)
PF_ECHO(pf_types_echo_uchar, unsigned char, echoUChar:)
PF_ECHO(pf_types_echo_short, short, echoShort:)
PF_ECHO(pf_types_echo_ushort, unsigned short, echoUShort:)
PF_ECHO(pf_types_echo_int, int, echoInt:)
PF_ECHO(pf_types_echo_uint, unsigned int, echoUInt:)
PF_ECHO(pf_types_echo_longlong, long long, echoLongLong:)
PF_ECHO(pf_types_echo_ulonglong, unsigned long long, echoULongLong:)
PF_ECHO(pf_types_echo_float, float, echoFloat:)
PF_ECHO(pf_types_echo_double, double, echoDouble:)
PF_ECHO(pf_types_echo_bool, bool, echoBool:)

long pf_types_echo_long(long v)
{
    PF_POOL_BEGIN
        PFTypes *t = [[PFTypes new] autorelease];
        SEL sel = sel_registerName("echoLong:");
        return ((long (*)(id, SEL, long))PF_LOOKUP(t, sel))(t, sel, v);
    PF_POOL_END
}

unsigned long pf_types_echo_ulong(unsigned long v)
{
    PF_POOL_BEGIN
        PFTypes *t = [[PFTypes new] autorelease];
        SEL sel = sel_registerName("echoULong:");
        return ((unsigned long (*)(id, SEL, unsigned long))PF_LOOKUP(t, sel))(t, sel, v);
    PF_POOL_END
}

void *pf_types_echo_object(void *object)
{
    PF_POOL_BEGIN
        PFTypes *t = [[PFTypes new] autorelease];
        return [[t echoObject:(id)object] retain];
    PF_POOL_END
}

char *pf_types_echo_class(const char *className)
{
    PF_POOL_BEGIN
        PFTypes *t = [[PFTypes new] autorelease];
        Class back = [t echoClass:objc_getClass(className)];
        return strdup(back ? class_getName(back) : "nil");
    PF_POOL_END
}

char *pf_types_echo_selector(const char *selectorName)
{
    PF_POOL_BEGIN
        PFTypes *t = [[PFTypes new] autorelease];
        SEL back = [t echoSelector:sel_registerName(selectorName)];
        return strdup(back ? sel_getName(back) : "nil");
    PF_POOL_END
}

char *pf_types_echo_cstring(const char *text)
{
    PF_POOL_BEGIN
        PFTypes *t = [[PFTypes new] autorelease];
        char *buffer = strdup(text);
        char *back = [t echoCString:buffer];
        /* Report the text only if the very same buffer came back. */
        char *result = NULL;
        if (back == buffer) result = strdup(back);
        else if (back != NULL) result = strdup("<different pointer>");
        free(buffer);
        return result;
    PF_POOL_END
}

void *pf_types_echo_pointer(void *pointer)
{
    PF_POOL_BEGIN
        PFTypes *t = [[PFTypes new] autorelease];
        return [t echoPointer:pointer];
    PF_POOL_END
}

int pf_types_record_void(int v)
{
    PF_POOL_BEGIN
        PFTypes *t = [[PFTypes new] autorelease];
        [t recordVoid:v];
        return [t lastRecorded];
    PF_POOL_END
}

double pf_types_many_args(int a, int b, int c, int d, int e, int f, int g, int h,
                          double x, double y, double z, double u, double v, double w,
                          double p, double q, double r)
{
    PF_POOL_BEGIN
        PFTypes *t = [[PFTypes new] autorelease];
        return [t manyArgs:a b:b c:c d:d e:e f:f g:g h:h x:x y:y z:z u:u v:v w:w p:p q:q r:r];
    PF_POOL_END
}
