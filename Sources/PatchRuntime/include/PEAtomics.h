#ifndef PE_ATOMICS_H
#define PE_ATOMICS_H
/* Word-sized atomic loads and stores for the Swift engine, which depends on no package (so not
   on swift-atomics): tables that JS → native calls on several threads read without a lock
   (JavaScriptCore drops its lock around native callbacks) publish their entries with these. */
#include <stdint.h>

static inline void *PEAtomicLoadPointer(void *const *address) { return __atomic_load_n(address, __ATOMIC_ACQUIRE); }
static inline void PEAtomicStorePointer(void **address, void *value) { __atomic_store_n(address, value, __ATOMIC_RELEASE); }
/* Publishes `value` where nothing was published yet; false (and nothing stored) if another thread
   published first. */
static inline _Bool PEAtomicCompareExchangePointer(void **address, void *expected, void *desired) {
    return __atomic_compare_exchange_n(address, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
static inline uint32_t PEAtomicLoadUInt32(const uint32_t *address) { return __atomic_load_n(address, __ATOMIC_ACQUIRE); }
static inline void PEAtomicStoreUInt32(uint32_t *address, uint32_t value) { __atomic_store_n(address, value, __ATOMIC_RELEASE); }
/* A counter several threads change (Engine's count of threads inside a VM). */
static inline long PEAtomicLoadLong(const long *address) { return __atomic_load_n(address, __ATOMIC_ACQUIRE); }
static inline void PEAtomicStoreLong(long *address, long value) { __atomic_store_n(address, value, __ATOMIC_RELEASE); }
static inline long PEAtomicAddLong(long *address, long delta) { return __atomic_add_fetch(address, delta, __ATOMIC_ACQ_REL); }
static inline _Bool PEAtomicCompareExchangeLong(long *address, long expected, long desired) {
    return __atomic_compare_exchange_n(address, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
#endif
