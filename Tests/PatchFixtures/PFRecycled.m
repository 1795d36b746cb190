/* PFRecycledFixture.h: objects sharing one block of memory, so a new object lands where a
   freed one was, deterministically, while that one's -dealloc is still running. */
#import "PFSupport.h"
#include "PFRecycledFixture.h"
#include <pthread.h>
#include <time.h>
#include <errno.h>

/* GNUstep keeps an object's retain count in a header just before it; the header room is
   zeroed with the object, as NSAllocateObject leaves it. */
#define PF_RECYCLED_HEADER 64
#define PF_RECYCLED_SIZE 512
static char block[PF_RECYCLED_HEADER + PF_RECYCLED_SIZE] __attribute__((aligned(64)));
static int taken;
static int armed;
static PFRecycledReport report = { -1, -1, -1, -1 };
static id newcomer;
/* The newcomer's end, on a mutex and a condition variable (Apple has no unnamed POSIX semaphores). */
static pthread_mutex_t newcomerLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t newcomerCond = PTHREAD_COND_INITIALIZER;
static int newcomerDone;

@interface PFRecycledBase : NSObject
- (int)add:(int)a to:(int)b;
@end

@implementation PFRecycledBase
+ (id)allocWithZone:(NSZone *)zone {
    (void)zone;
    if (class_getInstanceSize(self) > PF_RECYCLED_SIZE) return nil;
    if (__atomic_exchange_n(&taken, 1, __ATOMIC_ACQ_REL)) return nil;
    memset(block, 0, sizeof block);
    id object = (id)(block + PF_RECYCLED_HEADER);
    object_setClass(object, self);
    return object;
}
- (int)add:(int)a to:(int)b { return a + b; }

static void *newcomerThread(void *arg) {
    Class cls = (Class)arg;
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    id object = [[cls alloc] init];
    report.sameAddress = object == (id)(block + PF_RECYCLED_HEADER);
    if (object) report.newcomerAdd = [object add:1 to:2];
    newcomer = object;
    [pool release];
    pthread_mutex_lock(&newcomerLock);
    newcomerDone = 1;
    pthread_cond_signal(&newcomerCond);
    pthread_mutex_unlock(&newcomerLock);
    return NULL;
}

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wobjc-missing-super-calls"
- (void)dealloc {
    bool check = __atomic_exchange_n(&armed, 0, __ATOMIC_ACQ_REL);
    if (check) report.duringDealloc = [self add:2 to:3];
    Class cls = object_getClass(self);
    /* What NSObject's -dealloc does last: the memory goes back (here, to the next +alloc). */
    __atomic_store_n(&taken, 0, __ATOMIC_RELEASE);
    if (!check) return;
    /* Another thread allocates (the same block) and calls, while this -dealloc has not returned. */
    pthread_mutex_lock(&newcomerLock);
    newcomerDone = 0;
    pthread_mutex_unlock(&newcomerLock);
    pthread_t thread;
    if (pthread_create(&thread, NULL, newcomerThread, cls) != 0) return;
    pthread_detach(thread);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&newcomerLock);
    while (!newcomerDone) {
        if (pthread_cond_timedwait(&newcomerCond, &newcomerLock, &deadline) == ETIMEDOUT) break;
    }
    report.newcomerFinished = newcomerDone;
    pthread_mutex_unlock(&newcomerLock);
}
#pragma clang diagnostic pop
@end

#define PF_RECYCLED(N) @interface PFRecycled##N : PFRecycledBase @end @implementation PFRecycled##N @end
PF_RECYCLED(1) PF_RECYCLED(2) PF_RECYCLED(3) PF_RECYCLED(4)
PF_RECYCLED(5) PF_RECYCLED(6) PF_RECYCLED(7) PF_RECYCLED(8)

void *pf_recycled_new(const char *className) {
    Class cls = objc_getClass(className);
    return cls ? [[cls alloc] init] : NULL;
}

void pf_recycled_arm_newcomer_check(void) {
    report = (PFRecycledReport){ -1, -1, -1, -1 };
    newcomer = nil;
    __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
}

PFRecycledReport pf_recycled_report(void) { return report; }

void *pf_recycled_take_newcomer(void) {
    id object = newcomer;
    newcomer = nil;
    return object;
}
