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

void PEDispatchGenerationBumpClass(void *changed) {
    pthread_mutex_lock(&lock);
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
    for (unsigned i = 0; i < indexedCount; i++) __atomic_add_fetch(&counters[i], 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}
