#ifndef PE_CHECK_POINTS_H
#define PE_CHECK_POINTS_H
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

/* The word after the counter is the threshold a check point compares it with
   (`--__peTick[0]<__peTick[1]`): PE_CHECK_POINTS_THRESHOLD, or INT32_MAX when the limits' monitor
   thread asks for a check (a nudge). The nudge is a word of its own, which scripts only read: a
   nudge written into the counter itself is overwritten by the running JS's next decrement (its
   load and store race the monitor's store, and in a tight loop the racing store, forwarded from
   the JS thread's own store buffer, wins nearly every time: measured, a 2 s limit ended at 4 s). */
enum { PE_CHECK_POINTS_THRESHOLD = 1 };
static inline void PECheckPointsNudge(int32_t *counter) { __atomic_store_n(counter + 1, INT32_MAX, __ATOMIC_RELAXED); }
static inline void PECheckPointsClearNudge(int32_t *counter) {
    __atomic_store_n(counter + 1, PE_CHECK_POINTS_THRESHOLD, __ATOMIC_RELAXED);
}

/* The VM's entry stamp (ExecutionTimeLimit.stamp): the number of the last outermost entry begun in
   it, stored at its start, read by the limits' monitor thread (LimitMonitor.swift). */
static inline void PECheckPointsStamp(uint64_t *stamp, uint64_t entry) { __atomic_store_n(stamp, entry, __ATOMIC_RELAXED); }
static inline uint64_t PECheckPointsStampGet(const uint64_t *stamp) { return __atomic_load_n(stamp, __ATOMIC_RELAXED); }

#endif
