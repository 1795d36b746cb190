/* Fixtures of the lifecycle rows (PBLifecycle.h). */
#import <Foundation/Foundation.h>
#include "PBLifecycle.h"
#include <objc/runtime.h>
#include <objc/message.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <mach/mach.h>
#include <malloc/malloc.h>
#elif defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(GNU_RUNTIME) || defined(__GNU_LIBOBJC__)
#define PB_LOOKUP(receiver, sel) objc_msg_lookup(receiver, sel)
#else
#define PB_LOOKUP(receiver, sel) class_getMethodImplementation(object_getClass(receiver), sel)
#endif

static int manyNative(id self, SEL _cmd) { (void)self; (void)_cmd; return PB_MANY_NATIVE; }

static SEL manySelector(unsigned index) {
    char name[32];
    snprintf(name, sizeof name, "m%u", index);
    return sel_registerName(name);
}

void *pb_many_methods_class(const char *name, unsigned count) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    Class cls = objc_getClass(name);
    if (cls == Nil) {
        cls = objc_allocateClassPair([NSObject class], name, 0);
        for (unsigned i = 0; i < count; i++) class_addMethod(cls, manySelector(i), (IMP)manyNative, "i@:");
        objc_registerClassPair(cls);
    }
    pthread_mutex_unlock(&lock);
    bool matches = class_respondsToSelector(cls, manySelector(count - 1))
        && !class_respondsToSelector(cls, manySelector(count));
    return matches ? (void *)cls : NULL;
}

int pb_many_call(void *object, unsigned index, char **error) {
    SEL sel = manySelector(index);
    @try {
        return ((int (*)(id, SEL))PB_LOOKUP((id)object, sel))((id)object, sel);
    } @catch (NSException *e) {
        if (error) *error = strdup([[e reason] UTF8String] ?: "exception");
        return PB_MANY_NATIVE;
    }
}

void *pb_many_imp(void *cls, unsigned index) {
    return (void *)class_getMethodImplementation((Class)cls, manySelector(index));
}

static uint64_t created, deallocated;

@interface PBCounted : NSObject
+ (id)make;
@end

@implementation PBCounted
+ (id)make { return [[[self alloc] init] autorelease]; }
- (id)init {
    if ((self = [super init])) __atomic_add_fetch(&created, 1, __ATOMIC_RELAXED);
    return self;
}
- (void)dealloc {
    __atomic_add_fetch(&deallocated, 1, __ATOMIC_RELAXED);
    [super dealloc];
}
@end

void *pb_counted_class(void) { return (void *)[PBCounted class]; }
uint64_t pb_counted_created(void) { return __atomic_load_n(&created, __ATOMIC_RELAXED); }
uint64_t pb_counted_deallocated(void) { return __atomic_load_n(&deallocated, __ATOMIC_RELAXED); }

uint64_t pb_resident_bytes(void) {
#if defined(__APPLE__)
    struct mach_task_basic_info info;
    mach_msg_type_number_t count = MACH_TASK_BASIC_INFO_COUNT;
    if (task_info(mach_task_self(), MACH_TASK_BASIC_INFO, (task_info_t)&info, &count) != KERN_SUCCESS) return 0;
    return info.resident_size;
#else
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long long size = 0, resident = 0;
    int read = fscanf(f, "%llu %llu", &size, &resident);
    fclose(f);
    return read == 2 ? resident * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
#endif
}

uint64_t pb_malloc_bytes(void) {
#if defined(__APPLE__)
    malloc_statistics_t stats;
    malloc_zone_statistics(NULL, &stats);
    return stats.size_in_use;
#elif defined(__GLIBC__)
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}
