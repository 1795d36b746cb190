#ifndef PE_CHECK_POINTS_H
#define PE_CHECK_POINTS_H
#include <stdbool.h>
#include <stdint.h>

/* The native side of the check-point counter (ExecutionTimeLimit.swift): scripts count it down at
   every loop and function body, and call the limits' check when it reaches zero. A call from JS
   into native code counts as PE_CHECK_POINTS_PER_NATIVE_CALL check points, so a loop whose
   iterations spend their time in native code reaches its first check after 1,000 such calls
   instead of 100,000 iterations (a loop of 0.5 ms native calls: 0.5 s instead of 50 s).
   Called with the API lock dropped, while another thread's JS in the same VM may count the same
   counter down: a relaxed load and a relaxed store, not a read-modify-write — a count lost to a
   race only delays a check by that much. Never goes below -2^30, so it can't wrap. */
enum { PE_CHECK_POINTS_PER_NATIVE_CALL = 100 };

static inline void PECheckPointsCountNativeCall(int32_t *counter) {
    int32_t value = __atomic_load_n(counter, __ATOMIC_RELAXED);
    if (value > -(1 << 30)) __atomic_store_n(counter, value - PE_CHECK_POINTS_PER_NATIVE_CALL, __ATOMIC_RELAXED);
}

/* The engine's own reads and writes of the counter (under the API lock), atomic like the above. */
static inline int32_t PECheckPointsGet(const int32_t *counter) { return __atomic_load_n(counter, __ATOMIC_RELAXED); }
static inline void PECheckPointsSet(int32_t *counter, int32_t value) { __atomic_store_n(counter, value, __ATOMIC_RELAXED); }

/* The VM's entry stamp (ExecutionTimeLimit.stamp): the number of the last outermost entry begun in
   it, stored at its start, read by the limits' monitor thread (LimitMonitor.swift). */
static inline void PECheckPointsStamp(uint64_t *stamp, uint64_t entry) { __atomic_store_n(stamp, entry, __ATOMIC_RELAXED); }
static inline uint64_t PECheckPointsStampGet(const uint64_t *stamp) { return __atomic_load_n(stamp, __ATOMIC_RELAXED); }

/* An entry's heap growth as the limits' monitor watches it (LimitMonitor.swift, HeapGrowthLimit.swift):
   the entry measured and the process's footprint at its first check, published by the thread
   running it; and the monitor's request that the entry's next tock checks the heap at once. */
typedef struct PEHeapWatch {
    uint64_t entry;
    int64_t baseline;
    int32_t checkRequested;
} PEHeapWatch;

static inline void PEHeapWatchSetBaseline(PEHeapWatch *watch, uint64_t entry, int64_t baseline) {
    __atomic_store_n(&watch->baseline, baseline, __ATOMIC_RELAXED);
    __atomic_store_n(&watch->entry, entry, __ATOMIC_RELEASE);
}
static inline uint64_t PEHeapWatchEntry(const PEHeapWatch *watch) { return __atomic_load_n(&watch->entry, __ATOMIC_ACQUIRE); }
static inline int64_t PEHeapWatchBaseline(const PEHeapWatch *watch) { return __atomic_load_n(&watch->baseline, __ATOMIC_RELAXED); }
static inline void PEHeapWatchRequestCheck(PEHeapWatch *watch) { __atomic_store_n(&watch->checkRequested, 1, __ATOMIC_RELAXED); }
static inline bool PEHeapWatchTakeRequest(PEHeapWatch *watch) {
    return __atomic_load_n(&watch->checkRequested, __ATOMIC_RELAXED) != 0
        && __atomic_exchange_n(&watch->checkRequested, 0, __ATOMIC_RELAXED) != 0;
}

#endif
