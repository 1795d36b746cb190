#import "PFSupport.h"
#import "PFKindFixture.h"
#include "PEObjects.h"
#include <pthread.h>
#include <time.h>

static int held;            /* thread 0 is inside the class lookup */
static int finished;        /* other threads done classifying */
static int hookCalls;
static int wrongKinds;
static int threadCount;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Waits until `*count` reaches `target`, or 5 s have passed. */
static void waitFor(const int *count, int target) {
    double deadline = now() + 5;
    while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < target && now() < deadline) {
        struct timespec pause = { 0, 100000 };
        nanosleep(&pause, NULL);
    }
}

/* Only the first caller is held: with tables built per thread, the others pass through. */
static void holdFirstLookup(void) {
    if (__atomic_fetch_add(&hookCalls, 1, __ATOMIC_ACQ_REL) != 0) return;
    __atomic_store_n(&held, 1, __ATOMIC_RELEASE);
    waitFor(&finished, threadCount - 1);
}

static void classify(void) {
    @autoreleasepool {
        struct { id object; PEObjectKind kind; } cases[] = {
            { [NSNumber numberWithInt:42], PEObjectKindNumber },
            { [NSNumber numberWithBool:YES], PEObjectKindBoolean },
            { @"text", PEObjectKindString },
            { [NSArray array], PEObjectKindArray },
            { [NSDictionary dictionary], PEObjectKindDictionary },
            { [NSNull null], PEObjectKindNull },
        };
        for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
            if (PEObjectGetKind(cases[i].object) != cases[i].kind) __atomic_fetch_add(&wrongKinds, 1, __ATOMIC_ACQ_REL);
    }
}

static void *firstThread(void *unused) {
    PEThreadRegister();
    classify();
    return NULL;
}

static void *laterThread(void *unused) {
    PEThreadRegister();
    waitFor(&held, 1);
    classify();
    __atomic_fetch_add(&finished, 1, __ATOMIC_ACQ_REL);
    return NULL;
}

int pf_kind_first_use(int threads) {
    if (threads < 2 || threads > 64) return -2;
    threadCount = threads;
    PEObjectKindSetLoadHook(holdFirstLookup);
    pthread_t ids[64];
    int started = 0;
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&ids[i], NULL, i == 0 ? firstThread : laterThread, NULL) != 0) break;
        started++;
    }
    for (int i = 0; i < started; i++) pthread_join(ids[i], NULL);
    PEObjectKindSetLoadHook(NULL);
    if (started < threads) return -2;
    if (__atomic_load_n(&hookCalls, __ATOMIC_ACQUIRE) == 0) return -1;
    return __atomic_load_n(&wrongKinds, __ATOMIC_ACQUIRE);
}
