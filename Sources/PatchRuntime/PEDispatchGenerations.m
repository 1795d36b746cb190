/* Dispatch generations per class (PEDispatch.h). */
#include "PEInternal.h"
#include "PEDispatch.h"
#include <pthread.h>

/* Counter 0 stands for every class beyond the capacity and goes up with every change. The
   counters are static: the engine's JS reads them through an ArrayBuffer over this memory. */
static uint32_t counters[PE_DISPATCH_GENERATION_CAPACITY] __attribute__((aligned(16)));
static Class indexed[PE_DISPATCH_GENERATION_CAPACITY];
static unsigned indexedCount = 1;
/* Class → counter index, open addressing (twice the capacity, so never full); under `lock`. */
#define TABLE_SIZE (2 * PE_DISPATCH_GENERATION_CAPACITY)
static void *tableClasses[TABLE_SIZE];
static unsigned tableIndexes[TABLE_SIZE];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Answers watched for changes the engine does not make (PEDispatchGenerationWatch); under `lock`.
   Past the capacity, every change moves every counter instead (and the list starts again). */
#define WATCH_CAPACITY 1024
static struct { Class cls; SEL sel; IMP imp; unsigned index; } watched[WATCH_CAPACITY];
static unsigned watchedCount;
static bool watchOverflowed;
#define WATCH_MEMO 2048
static unsigned watchedMemo[WATCH_MEMO];     /* index + 1 into `watched`, or 0 */

uint32_t *PEDispatchGenerations(void) { return counters; }

static unsigned slotOf(void *cls) {
    unsigned h = (unsigned)(((uintptr_t)cls >> 4) * 2654435761u) % TABLE_SIZE;
    while (tableClasses[h] && tableClasses[h] != cls) h = (h + 1) % TABLE_SIZE;
    return h;
}

unsigned PEDispatchGenerationIndex(void *cls) {
    if (!cls) return 0;
    pthread_mutex_lock(&lock);
    unsigned h = slotOf(cls), index = 0;
    if (tableClasses[h]) {
        index = tableIndexes[h];
    } else if (indexedCount < PE_DISPATCH_GENERATION_CAPACITY) {
        index = indexedCount++;
        indexed[index] = (Class)cls;
        tableIndexes[h] = index;
        tableClasses[h] = cls;
    }
    pthread_mutex_unlock(&lock);
    return index;
}

uint32_t PEDispatchGenerationRead(unsigned index) {
    return index < PE_DISPATCH_GENERATION_CAPACITY ? __atomic_load_n(&counters[index], __ATOMIC_ACQUIRE) : 0;
}

void PEDispatchGenerationWatch(void *cls, const void *sel, void *imp) {
    if (!cls || !sel) return;
    pthread_mutex_lock(&lock);
    unsigned h = slotOf(cls);
    unsigned index = tableClasses[h] ? tableIndexes[h] : 0;
    /* Each resolution from JS comes here: a direct-mapped memo of where an answer was put finds
       repeats without a scan (a stale memo only adds a duplicate). */
    unsigned m = (unsigned)((((uintptr_t)cls >> 4) ^ ((uintptr_t)sel >> 3) ^ ((uintptr_t)imp >> 4)) * 2654435761u) % WATCH_MEMO;
    unsigned at = watchedMemo[m];
    bool known = at && at <= watchedCount && watched[at - 1].cls == (Class)cls && watched[at - 1].sel == (SEL)sel
        && watched[at - 1].imp == (IMP)imp;
    if (!known && watchedCount < WATCH_CAPACITY) {
        watched[watchedCount++] = (typeof(watched[0])){ (Class)cls, (SEL)sel, (IMP)imp, index };
        watchedMemo[m] = watchedCount;
    } else if (!known) {
        watchOverflowed = true;
    }
    pthread_mutex_unlock(&lock);
}

/* Under `lock`, at every change: answers whose send finds another implementation now. The
   classes were messaged (their dispatch tables are built), so the lookup runs no +initialize. */
static void recheckWatched(void) {
    if (watchOverflowed) {
        for (unsigned i = 0; i < indexedCount; i++) __atomic_add_fetch(&counters[i], 1, __ATOMIC_RELEASE);
        watchedCount = 0;
        watchOverflowed = false;
        return;
    }
    for (unsigned i = 0; i < watchedCount;) {
        if (class_getMethodImplementation(watched[i].cls, watched[i].sel) == watched[i].imp) { i++; continue; }
        __atomic_add_fetch(&counters[watched[i].index], 1, __ATOMIC_RELEASE);
        watched[i] = watched[--watchedCount];
    }
}

void PEDispatchGenerationBumpClass(void *changed) {
    pthread_mutex_lock(&lock);
    recheckWatched();
    for (unsigned i = 1; i < indexedCount; i++) {
        for (Class k = indexed[i]; k; k = class_getSuperclass(k)) {
            if (k == (Class)changed) { __atomic_add_fetch(&counters[i], 1, __ATOMIC_RELEASE); break; }
        }
    }
    __atomic_add_fetch(&counters[0], 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

void PEDispatchGenerationBumpAll(void) {
    pthread_mutex_lock(&lock);
    recheckWatched();
    for (unsigned i = 0; i < indexedCount; i++) __atomic_add_fetch(&counters[i], 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}
