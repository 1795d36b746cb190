#import "PFSupport.h"
#import "PFNative.h"
#include <objc/runtime.h>
#include <objc/message.h>
#include <ctype.h>
#include <time.h>

/* A registry object the scripts can reach: +objectForKey: / +setObject:forKey: / +removeObjectForKey:. */
@interface PFRegistry : NSObject
+ (id)objectForKey:(NSString *)key;
+ (void)setObject:(id)object forKey:(NSString *)key;
+ (void)removeObjectForKey:(NSString *)key;
@end

static NSMutableDictionary *PFRegistryTable(void)
{
    static NSMutableDictionary *table = nil;
    if (table == nil) table = [NSMutableDictionary new];
    return table;
}

static NSLock *PFRegistryLock(void)
{
    static NSLock *lock = nil;
    if (lock == nil) lock = [NSLock new];
    return lock;
}

@implementation PFRegistry
+ (void)initialize { PFRegistryTable(); PFRegistryLock(); }
+ (id)objectForKey:(NSString *)key
{
    [PFRegistryLock() lock];
    id object = [[[PFRegistryTable() objectForKey:key] retain] autorelease];
    [PFRegistryLock() unlock];
    return object;
}
+ (void)setObject:(id)object forKey:(NSString *)key
{
    [PFRegistryLock() lock];
    if (object) [PFRegistryTable() setObject:object forKey:key];
    else [PFRegistryTable() removeObjectForKey:key];
    [PFRegistryLock() unlock];
}
+ (void)removeObjectForKey:(NSString *)key
{
    [self setObject:nil forKey:key];
}
@end

static NSString *PFStr(const char *s) { return s ? [NSString stringWithUTF8String:s] : nil; }

void *pf_new(const char *className)
{
    PF_POOL_BEGIN
        Class cls = objc_getClass(className);
        if (cls == Nil) return NULL;
        @try {
            return [[cls alloc] init];
        } @catch (NSException *e) {
            return NULL;
        }
    PF_POOL_END
}

void pf_retain(void *object) { [(id)object retain]; }
void pf_release(void *object) { [(id)object release]; }

__attribute__((noinline)) void pf_scrub_stack(void) {
    void *volatile stack[256 * 1024 / sizeof(void *)];
    for (unsigned long i = 0; i < sizeof stack / sizeof stack[0]; i++) stack[i] = 0;
}

unsigned long pf_retain_count(void *object) { return (unsigned long)[(id)object retainCount]; }

int pf_class_exists(const char *className) { return objc_getClass(className) != Nil; }

char *pf_superclass_name(const char *className)
{
    Class cls = objc_getClass(className);
    if (cls == Nil || class_getSuperclass(cls) == Nil) return NULL;
    return strdup(class_getName(class_getSuperclass(cls)));
}

char *pf_class_name_of(void *object)
{
    if (object == NULL) return strdup("nil");
    return strdup(class_getName(object_getClass((id)object)));
}

int pf_is_kind_of(void *object, const char *className)
{
    Class cls = objc_getClass(className);
    if (object == NULL || cls == Nil) return 0;
    PF_POOL_BEGIN
        return [(id)object isKindOfClass:cls] ? 1 : 0;
    PF_POOL_END
}

int pf_responds(void *object, const char *selector)
{
    if (object == NULL) return 0;
    PF_POOL_BEGIN
        return [(id)object respondsToSelector:sel_registerName(selector)] ? 1 : 0;
    PF_POOL_END
}

int pf_instances_respond(const char *className, const char *selector)
{
    Class cls = objc_getClass(className);
    if (cls == Nil) return 0;
    return class_respondsToSelector(cls, sel_registerName(selector)) ? 1 : 0;
}

int pf_class_responds(const char *className, const char *selector)
{
    Class cls = objc_getClass(className);
    if (cls == Nil) return 0;
    return class_respondsToSelector(object_getClass((id)cls), sel_registerName(selector)) ? 1 : 0;
}

int pf_protocol_exists(const char *protocolName)
{
    return objc_getProtocol(protocolName) != NULL;
}

int pf_conforms(const char *className, const char *protocolName)
{
    Class cls = objc_getClass(className);
    Protocol *protocol = objc_getProtocol(protocolName);
    if (cls == Nil || protocol == NULL) return 0;
    PF_POOL_BEGIN
        return [cls conformsToProtocol:protocol] ? 1 : 0;
    PF_POOL_END
}

/* Keeps only the type letters of an encoding ("v24@0:8" → "v@:"). */
static char *PFStripOffsets(const char *types)
{
    char *stripped = malloc(strlen(types) + 1);
    char *out = stripped;
    for (const char *p = types; *p; p++) {
        if (!isdigit((unsigned char)*p)) *out++ = *p;
    }
    *out = '\0';
    return stripped;
}

char *pf_protocol_method_types(const char *protocolName, const char *selector, int instanceMethod)
{
    Protocol *protocol = objc_getProtocol(protocolName);
    if (protocol == NULL) return NULL;
    SEL sel = sel_registerName(selector);
    for (int required = 1; required >= 0; required--) {
        struct objc_method_description description =
            protocol_getMethodDescription(protocol, sel, required ? YES : NO, instanceMethod ? YES : NO);
        if (description.types != NULL) return PFStripOffsets(description.types);
    }
    return NULL;
}

char *pf_method_types(const char *className, const char *selector, int classMethod)
{
    Class cls = objc_getClass(className);
    if (cls == Nil) return NULL;
    SEL sel = sel_registerName(selector);
    Method method = classMethod ? class_getClassMethod(cls, sel) : class_getInstanceMethod(cls, sel);
    if (method == NULL) return NULL;
    const char *types = method_getTypeEncoding(method);
    if (types == NULL) return NULL;
    /* Offsets and sizes ("v24@0:8") are platform noise: keep only the types. */
    return PFStripOffsets(types);
}

char *pf_describe(void *object)
{
    PF_POOL_BEGIN
        return PFCopyString(PFDescribe((id)object));
    PF_POOL_END
}

int pf_same_object(void *a, void *b) { return a == b; }

typedef id (*PFIdIMP0)(id, SEL);
typedef id (*PFIdIMP1)(id, SEL, id);
typedef id (*PFIdIMP2)(id, SEL, id, id);

char *pf_send(void *object, const char *selector)
{
    PF_POOL_BEGIN
        @try {
            SEL sel = sel_registerName(selector);
            id result = ((PFIdIMP0)PF_LOOKUP((id)object, sel))((id)object, sel);
            return PFCopyString(PFDescribe(result));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

char *pf_send_obj(void *object, const char *selector, void *argument)
{
    PF_POOL_BEGIN
        @try {
            SEL sel = sel_registerName(selector);
            id result = ((PFIdIMP1)PF_LOOKUP((id)object, sel))((id)object, sel, (id)argument);
            return PFCopyString(PFDescribe(result));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

char *pf_send_str(void *object, const char *selector, const char *argument)
{
    PF_POOL_BEGIN
        @try {
            SEL sel = sel_registerName(selector);
            id result = ((PFIdIMP1)PF_LOOKUP((id)object, sel))((id)object, sel, PFStr(argument));
            return PFCopyString(PFDescribe(result));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

char *pf_send_str_str(void *object, const char *selector, const char *a, const char *b)
{
    PF_POOL_BEGIN
        @try {
            SEL sel = sel_registerName(selector);
            id result = ((PFIdIMP2)PF_LOOKUP((id)object, sel))((id)object, sel, PFStr(a), PFStr(b));
            return PFCopyString(PFDescribe(result));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

char *pf_send_void_obj(void *object, const char *selector, void *argument)
{
    PF_POOL_BEGIN
        @try {
            SEL sel = sel_registerName(selector);
            typedef void (*IMPType)(id, SEL, id);
            ((IMPType)PF_LOOKUP((id)object, sel))((id)object, sel, (id)argument);
            return NULL;
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

char *pf_send_void_str(void *object, const char *selector, const char *argument)
{
    PF_POOL_BEGIN
        return pf_send_void_obj(object, selector, PFStr(argument));
    PF_POOL_END
}

char *pf_send_class(const char *className, const char *selector)
{
    Class cls = objc_getClass(className);
    if (cls == Nil) return strdup("!NoClass: no such class");
    return pf_send((void *)cls, selector);
}

char *pf_send_class_str(const char *className, const char *selector, const char *argument)
{
    Class cls = objc_getClass(className);
    if (cls == Nil) return strdup("!NoClass: no such class");
    return pf_send_str((void *)cls, selector, argument);
}

char *pf_new_send(const char *className, const char *selector)
{
    void *object = pf_new(className);
    if (object == NULL) return strdup("!NoObject: could not create instance");
    char *result = pf_send(object, selector);
    pf_release(object);
    return result;
}

void *pf_send_retained(void *object, const char *selector)
{
    PF_POOL_BEGIN
        @try {
            SEL sel = sel_registerName(selector);
            id result = ((PFIdIMP0)PF_LOOKUP((id)object, sel))((id)object, sel);
            return [result retain];
        } @catch (NSException *e) {
            return NULL;
        }
    PF_POOL_END
}

double pf_send_double_double_int(void *object, const char *selector, double a, int b, int *raised)
{
    *raised = 0;
    PF_POOL_BEGIN
        @try {
            SEL sel = sel_registerName(selector);
            typedef double (*IMPType)(id, SEL, double, int);
            return ((IMPType)PF_LOOKUP((id)object, sel))((id)object, sel, a, b);
        } @catch (NSException *e) {
            *raised = 1;
            return 0;
        }
    PF_POOL_END
}

int pf_send_int_str(void *object, const char *selector, const char *argument, int *raised)
{
    *raised = 0;
    PF_POOL_BEGIN
        @try {
            SEL sel = sel_registerName(selector);
            typedef int (*IMPType)(id, SEL, id);
            return ((IMPType)PF_LOOKUP((id)object, sel))((id)object, sel, PFStr(argument));
        } @catch (NSException *e) {
            *raised = 1;
            return 0;
        }
    PF_POOL_END
}

void pf_registry_set(const char *key, void *object)
{
    PF_POOL_BEGIN
        [PFRegistry setObject:(id)object forKey:PFStr(key)];
    PF_POOL_END
}

void *pf_registry_get(const char *key)
{
    PF_POOL_BEGIN
        return [PFRegistry objectForKey:PFStr(key)];
    PF_POOL_END
}

void pf_registry_remove(const char *key)
{
    PF_POOL_BEGIN
        [PFRegistry removeObjectForKey:PFStr(key)];
    PF_POOL_END
}

void *pf_make_sample(const char *kind)
{
    PF_POOL_BEGIN
        NSString *k = PFStr(kind);
        if ([k isEqualToString:@"string"]) return [[NSString alloc] initWithFormat:@"sample-%d", 1];
        if ([k isEqualToString:@"mutableString"]) return [[NSMutableString alloc] initWithString:@"mutable"];
        if ([k isEqualToString:@"array"]) return [[NSArray alloc] initWithObjects:@"a", [NSNumber numberWithInt:1], nil];
        if ([k isEqualToString:@"dict"]) return [[NSDictionary alloc] initWithObjectsAndKeys:@"v", @"k", nil];
        if ([k isEqualToString:@"number"]) return [[NSNumber alloc] initWithInt:42];
        if ([k isEqualToString:@"object"]) return [[NSObject alloc] init];
        return NULL;
    PF_POOL_END
}

/* Burns this thread's CPU time (what the execution time limit counts; a sleep would not count). */
@interface PFCPUBurner : NSObject
+ (double)burnMilliseconds:(double)milliseconds;
@end

static double PFThreadCPUSeconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

@implementation PFCPUBurner
+ (double)burnMilliseconds:(double)milliseconds
{
    double start = PFThreadCPUSeconds(), now = start;
    volatile double sink = 0;
    while (now - start < milliseconds / 1000) {
        for (int i = 0; i < 1000; i++) sink += i;
        now = PFThreadCPUSeconds();
    }
    return now - start;
}
@end
