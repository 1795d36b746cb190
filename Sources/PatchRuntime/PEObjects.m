/* Object operations for the Swift engine (see PEObjects.h). */
#include "PEInternal.h"
#include "PEObjects.h"
#include "PEBlocks.h"
#include "PESlot.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if PE_GNU_RUNTIME
#include <pthread.h>
#include <stdio.h>
extern char **environ;

static void initializeProcess(void) {
    static char *argv[64];
    int argc = 0;
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f) {
        static char buffer[8192];
        size_t n = fread(buffer, 1, sizeof buffer - 1, f);
        fclose(f);
        buffer[n] = 0;
        for (size_t i = 0; i < n && argc < 63; i += strlen(buffer + i) + 1) argv[argc++] = buffer + i;
    }
    if (argc == 0) argv[argc++] = "patchengine";
    argv[argc] = NULL;
    GSInitializeProcess(argc, argv, environ);
}

void PEGNUInitializeProcess(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, initializeProcess);
}

/* GNUstep's main thread is the thread that first messages NSThread (its +initialize records
   it), not the process's. A patch is often first applied on a background queue (a download's
   completion), and that thread would become GNUstep's main one: +isMainThread then lies on both
   threads, and work sent to the main thread runs wherever GNUstep thinks that is. So the
   thread that loads this library, the main thread, registers first, after handing GNUstep the
   process arguments (process set-up, as a GNUstep program's own start does; done at the first
   engine start it was ≈ 0.35 ms of it). Through C functions of gnustep-base only: libraries
   this one depends on are initialised before it, but the selectors of this program's own
   Objective-C may not be registered yet (a message sent from here raised "Can not determine
   type information"). */
__attribute__((constructor)) static void registerTheMainThreadFirst(void) {
    extern BOOL GSRegisterCurrentThread(void);
    PEGNUInitializeProcess();
    GSRegisterCurrentThread();
}
#endif

void PEThreadRegister(void) { PEEnsureThreadRegistered(); }

static pthread_mutex_t deferredLock = PTHREAD_MUTEX_INITIALIZER;
static void **deferred;
static size_t deferredCount, deferredCapacity;

void PEDeferRelease(void *obj) {
    if (!obj) return;
    pthread_mutex_lock(&deferredLock);
    if (deferredCount == deferredCapacity) {
        deferredCapacity = deferredCapacity ? deferredCapacity * 2 : 256;
        deferred = realloc(deferred, deferredCapacity * sizeof(void *));
    }
    deferred[deferredCount++] = obj;
    pthread_mutex_unlock(&deferredLock);
}

void PEDrainDeferredReleases(void) {
    if (!__atomic_load_n(&deferredCount, __ATOMIC_RELAXED)) return;
    PEEnsureThreadRegistered();
    pthread_mutex_lock(&deferredLock);
    void **batch = deferred;
    size_t count = deferredCount;
    deferred = NULL; deferredCount = deferredCapacity = 0;
    pthread_mutex_unlock(&deferredLock);
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    for (size_t i = 0; i < count; i++) {
        @try { PEObjectRelease(batch[i]); }
        @catch (id e) { NSLog(@"PatchEngine: -dealloc raised %@", e); }
    }
    [pool drain];
    free(batch);
}

static __thread void *deferredAutoreleases[32];
static __thread unsigned deferredAutoreleaseCount;

void PEDeferAutorelease(void *obj) {
    if (!obj) return;
    PEObjectRetain(obj);
    if (deferredAutoreleaseCount < 32) deferredAutoreleases[deferredAutoreleaseCount++] = obj;
    else PEDeferRelease(obj);   /* rare overflow: kept until the next safe point instead */
}

void PEFlushDeferredAutoreleases(void) {
    while (deferredAutoreleaseCount) PEObjectAutorelease(deferredAutoreleases[--deferredAutoreleaseCount]);
}

static Class protocolClass(void) {
    static void *cls;   /* the same answer on every thread: a racing first store is harmless */
    void *known = __atomic_load_n(&cls, __ATOMIC_RELAXED);
    if (!known) __atomic_store_n(&cls, known = (void *)objc_lookUpClass("Protocol"), __ATOMIC_RELAXED);
    return (Class)known;
}

/* `obj`, neither NULL nor a block, is a protocol object. */
static inline bool isProtocolObject(void *obj) {
    Class cls = protocolClass();
    return cls && PEPlatformIsProtocol(obj, cls);
}

bool PEObjectIsProtocol(void *obj) {
    return obj && !PEIsBlock(obj) && isProtocolObject(obj);
}

void *PEObjectCanonical(void *obj) {
    return PEObjectIsProtocol(obj) ? PEPlatformCanonicalProtocol(obj) : obj;
}

/* Each tests for a block once (a retain or release is on every boxing's path), then for a protocol. */
void *PEObjectRetain(void *obj) {
    if (!obj) return obj;
    if (PEIsBlock(obj)) return PEBlockCopy(obj);
    if (isProtocolObject(obj)) return obj;
    return [(id)obj retain];
}
void PEObjectRelease(void *obj) {
    if (!obj) return;
    if (PEIsBlock(obj)) PEBlockRelease(obj);
    else if (!isProtocolObject(obj)) [(id)obj release];
}
void *PEObjectAutorelease(void *obj) {
    if (!obj || PEIsBlock(obj) || isProtocolObject(obj)) return obj;
    return [(id)obj autorelease];
}

void PEAutoreleaseMalloced(void *bytes, size_t length) {
    [NSData dataWithBytesNoCopy:bytes length:length freeWhenDone:YES];
}

/* What PEObjectGetKind found for the last class it was asked about on this thread, when the class
   alone decides it (every kind but numbers and booleans, which depend on the NSNumber): the
   isKindOfClass: messages below cost more than the rest of a bridged call's result conversion. */
static __thread Class lastKindClass;
static __thread PEObjectKind lastKind;

static PEObjectKind objectKindOfClass(id obj);

PEObjectKind PEObjectGetKind(void *ptr) {
    if (!ptr) return PEObjectKindOther;
    if (PEIsBlock(ptr)) return PEObjectKindBlock;
    id obj = (id)ptr;
    Class cls = object_getClass(obj);
    if (cls == lastKindClass) return lastKind;
    /* Before anything reads the class: an unregistered protocol has none (PEPlatform.h), and a
       registered one answers no -isKindOfClass:. */
    if (PEObjectIsProtocol(obj)) return PEObjectKindOther;
    if (class_isMetaClass(cls)) return PEObjectKindClass;
    PEObjectKind kind = objectKindOfClass(obj);
    if (kind != PEObjectKindNumber && kind != PEObjectKindBoolean) { lastKindClass = cls; lastKind = kind; }
    return kind;
}

/* The classes objectKindOfClass tests against, published whole. The first conversions may come
   from several threads at once: with the values set one by one behind an "if not set yet", a
   thread that saw the first one set while the rest were still nil took an NSNumber for an object,
   or @YES for a number (ObjectKindFirstUseTests, through the hook below). Not a once-only lock either:
   looking them up sends messages (+numberWithBool:), which a patch or a hook may have reached
   first, and a lookup re-entered from there must not wait for itself. A thread that finds no
   table builds one; the first one published is everyone's. */
typedef struct PEKindClasses { Class str, num, arr, dict, null; id yes, no; } PEKindClasses;
static const PEKindClasses *kindClasses;
static void (*kindClassesHook)(void);

void PEObjectKindSetLoadHook(void (*hook)(void)) { __atomic_store_n(&kindClassesHook, hook, __ATOMIC_RELEASE); }

static const PEKindClasses *loadKindClasses(void) {
    const PEKindClasses *table = __atomic_load_n(&kindClasses, __ATOMIC_ACQUIRE);
    if (table) return table;
    PEKindClasses *made = malloc(sizeof *made);
    if (!made) abort();
    made->str = [NSString class];
    void (*hook)(void) = __atomic_load_n(&kindClassesHook, __ATOMIC_ACQUIRE);
    if (hook) hook();
    made->num = [NSNumber class]; made->arr = [NSArray class];
    made->dict = [NSDictionary class]; made->null = [NSNull class];
    made->yes = [[NSNumber numberWithBool:YES] retain]; made->no = [[NSNumber numberWithBool:NO] retain];
    const PEKindClasses *expected = NULL;
    if (__atomic_compare_exchange_n(&kindClasses, &expected, made, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return made;
    [made->yes release]; [made->no release];
    free(made);
    return expected;
}

static PEObjectKind objectKindOfClass(id obj) {
    const PEKindClasses *k = loadKindClasses();
    Class str = k->str, num = k->num, arr = k->arr, dict = k->dict, null = k->null;
    id yes = k->yes, no = k->no;
    if ([obj isKindOfClass:str]) return PEObjectKindString;
    if ([obj isKindOfClass:num]) {
        if (obj == yes || obj == no) return PEObjectKindBoolean;
        const char *t = [(NSNumber *)obj objCType];
        return (t && (t[0] == 'B')) ? PEObjectKindBoolean : PEObjectKindNumber;
    }
    if ([obj isKindOfClass:arr]) return PEObjectKindArray;
    if ([obj isKindOfClass:dict]) return PEObjectKindDictionary;
    if ([obj isKindOfClass:null]) return PEObjectKindNull;
    return PEObjectKindOther;
}

void *PEObjectGetClass(void *obj) { return obj ? object_getClass((id)obj) : NULL; }

bool PEObjectClassWord(void *obj, uintptr_t *mask) {
    if (!PEObjectHasIsaWord(obj)) return false;
    *mask = PEIsaClassMask();
    return true;
}
const char *PEClassGetName(void *cls) { return cls ? class_getName((Class)cls) : "nil"; }
void *PEClassGetSuperclass(void *cls) { return cls ? class_getSuperclass((Class)cls) : NULL; }
bool PEClassIsMetaClass(void *cls) { return cls && class_isMetaClass((Class)cls); }
void *PEClassLookup(const char *name) { return objc_lookUpClass(name); }
void *PEClassGetMetaClass(void *cls) { return cls ? object_getClass((id)cls) : NULL; }
char *PEObjectDescription(void *obj) {
    if (!obj) return strdup("nil");
    if (PEIsBlock(obj)) return strdup("<block>");
    if (PEObjectIsProtocol(obj)) {   /* answers no -description (PEPlatform.h) */
        const char *name = protocol_getName((Protocol *)PEObjectCanonical(obj));
        size_t length = strlen(name ? name : "?") + 12;
        char *result = malloc(length);
        snprintf(result, length, "<Protocol %s>", name ? name : "?");
        return result;
    }
    char *result = NULL;
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    @try { result = strdup([[(id)obj description] UTF8String] ?: ""); }
    @catch (id e) { result = strdup("<description raised>"); }
    [pool drain];
    return result;
}

const char *PEObjectMethodTypes(void *receiver, const char *selector) {
    if (!receiver) return NULL;
    Method m = class_getInstanceMethod(object_getClass((id)receiver), sel_registerName(selector));
    return m ? method_getTypeEncoding(m) : NULL;
}

char *PEObjectForwardedMethodTypes(void *receiver, const char *selector, char **error) {
    char *types = NULL;
    if (PEObjectIsProtocol(receiver)) return NULL;   /* answers no -methodSignatureForSelector: */
    PE_TRY(error, {
        NSMethodSignature *sig = [(id)receiver methodSignatureForSelector:sel_registerName(selector)];
        if (sig) {
            NSMutableString *s = [NSMutableString stringWithUTF8String:[sig methodReturnType]];
            for (NSUInteger i = 0; i < [sig numberOfArguments]; i++) [s appendFormat:@"%s", [sig getArgumentTypeAtIndex:i]];
            types = strdup([s UTF8String]);
        }
    });
    return types;
}

bool PEObjectRespondsTo(void *receiver, const char *selector) {
    return receiver && class_respondsToSelector(object_getClass((id)receiver), sel_registerName(selector));
}

const char *PEClassInstanceMethodTypes(void *cls, const char *selector) {
    Method m = cls ? class_getInstanceMethod((Class)cls, sel_registerName(selector)) : NULL;
    return m ? method_getTypeEncoding(m) : NULL;
}

const void *PESelectorRegister(const char *name) { return sel_registerName(name); }
const char *PESelectorGetName(const void *sel) { return sel ? sel_getName((SEL)sel) : NULL; }

void *PEStringCreate(const char *utf8, size_t length) {
    NSString *s = [[NSString alloc] initWithBytes:utf8 length:length encoding:NSUTF8StringEncoding];
    return [s autorelease];
}
char *PEStringCopyUTF8(void *string, size_t *length) {
    NSData *d = [(NSString *)string dataUsingEncoding:NSUTF8StringEncoding];
    size_t n = [d length];
    char *r = malloc(n + 1);
    memcpy(r, [d bytes], n); r[n] = 0;
    if (length) *length = n;
    return r;
}
void *PENumberCreateDouble(double v) { return [NSNumber numberWithDouble:v]; }
void *PENumberCreateBool(bool v) { return [NSNumber numberWithBool:v]; }
double PENumberGetDouble(void *n) { return [(NSNumber *)n doubleValue]; }
void *PENull(void) { return [NSNull null]; }
void *PEArrayCreate(void) { return [NSMutableArray array]; }
void PEArrayAppend(void *a, void *o) { [(NSMutableArray *)a addObject:o ? (id)o : [NSNull null]]; }
size_t PEArrayCount(void *a) { return [(NSArray *)a count]; }
void *PEArrayGet(void *a, size_t i) { return [(NSArray *)a objectAtIndex:i]; }
void *PEDictionaryCreate(void) { return [NSMutableDictionary dictionary]; }
void PEDictionarySet(void *d, void *k, void *v) {
    if (!k) return;
    [(NSMutableDictionary *)d setObject:v ? (id)v : [NSNull null] forKey:(id)k];
}
size_t PEDictionaryCount(void *d) { return [(NSDictionary *)d count]; }
void *PEDictionaryKeys(void *d) { return [(NSDictionary *)d allKeys]; }
void *PEDictionaryGet(void *d, void *k) { return [(NSDictionary *)d objectForKey:(id)k]; }

#pragma mark - Property storage

#if PE_GNU_RUNTIME
/* GCC's runtime has no associated objects: a side table keyed by address, cleared by the
   dispatcher when -dealloc of classes that use it starts (PEPropertyDetach, runDeallocClearingState). */
static pthread_mutex_t propertyLock = PTHREAD_MUTEX_INITIALIZER;
static NSMapTable *propertyTable;

/* A dying object's own -dealloc reads and writes the properties moved onto its thread's stack
   (PEDeallocatingPropertiesOnThisThread); a new object at its address starts from none. */
void *PEPropertyGet(void *obj, const char *key) {
    NSString *k = [NSString stringWithUTF8String:key];
    void **dying = PEDeallocatingPropertiesOnThisThread(obj);
    if (dying) return [[[(NSDictionary *)*dying objectForKey:k] retain] autorelease];
    pthread_mutex_lock(&propertyLock);
    NSMutableDictionary *values = propertyTable ? NSMapGet(propertyTable, obj) : nil;
    id value = [[[values objectForKey:k] retain] autorelease];
    pthread_mutex_unlock(&propertyLock);
    return value;
}
/* Nothing is released while propertyLock is held: a release can run -dealloc, whose per-object
   cleanup comes back here (PEPropertyDetach) on the same thread. */
void PEPropertySet(void *obj, const char *key, void *value) {
    NSString *k = [[NSString alloc] initWithUTF8String:key];
    id previous = nil;
    void **dying = PEDeallocatingPropertiesOnThisThread(obj);
    if (dying) {
        if (!*dying) *dying = [NSMutableDictionary new];
        NSMutableDictionary *values = *dying;      /* read before a release can grow the stack */
        previous = [[values objectForKey:k] retain];
        if (value) [values setObject:(id)value forKey:k]; else [values removeObjectForKey:k];
    } else {
        pthread_mutex_lock(&propertyLock);
        if (!propertyTable) propertyTable = NSCreateMapTable(NSNonOwnedPointerMapKeyCallBacks, NSObjectMapValueCallBacks, 64);
        NSMutableDictionary *values = NSMapGet(propertyTable, obj);
        if (!values) { values = [NSMutableDictionary new]; NSMapInsert(propertyTable, obj, values); [values release]; }
        previous = [[values objectForKey:k] retain];
        if (value) [values setObject:(id)value forKey:k]; else [values removeObjectForKey:k];
        pthread_mutex_unlock(&propertyLock);
    }
    [previous release];
    [k release];
}
void *PEPropertyDetach(void *obj) {
    if (!__atomic_load_n((void **)&propertyTable, __ATOMIC_ACQUIRE)) return NULL;
    pthread_mutex_lock(&propertyLock);
    NSMutableDictionary *values = propertyTable ? [(id)NSMapGet(propertyTable, obj) retain] : nil;
    if (values) NSMapRemove(propertyTable, obj);
    pthread_mutex_unlock(&propertyLock);
    return values;
}
void PEPropertyClear(void *obj) {
    [(id)PEPropertyDetach(obj) release];    /* may free the stored values: outside the lock */
}
void PEPropertiesRelease(void *properties) { [(id)properties release]; }
#else
void *PEPropertyGet(void *obj, const char *key) {
    return objc_getAssociatedObject((id)obj, sel_registerName(key));
}
void PEPropertySet(void *obj, const char *key, void *value) {
    objc_setAssociatedObject((id)obj, sel_registerName(key), (id)value, OBJC_ASSOCIATION_RETAIN_NONATOMIC);
}
/* The runtime drops associated objects itself, before the memory is freed. */
void PEPropertyClear(void *obj) { (void)obj; }
void *PEPropertyDetach(void *obj) { (void)obj; return NULL; }
void PEPropertiesRelease(void *properties) { (void)properties; }
#endif
