/* Stress points: the places where the engine hands a shared structure from one step to the next
   (a list read and then used, a record unlinked and then retired, a lock dropped and taken back,
   an object's memory freed and its state cleared). In a debug build, PATCHENGINE_STRESS_SEED=N in
   the environment makes each of them pause now and then (a 1 ns sleep, which gives up the core,
   or a sleep of up to ~300 µs), chosen by a per-thread generator seeded from N, so the
   interleavings a busy phone produces turn up in a test run (make stress). Without the variable,
   or in a release build, a stress point is one predictable branch (debug) or nothing (release). */
#ifndef PE_STRESS_POINTS_H
#define PE_STRESS_POINTS_H
#include <stdbool.h>
#include <stdint.h>

#if defined(DEBUG) && DEBUG
#define PE_STRESS_POINTS_BUILT 1
#else
#define PE_STRESS_POINTS_BUILT 0
#endif

/* Set once, before main, from PATCHENGINE_STRESS_SEED (debug builds only). */
extern bool PEStressPointsEnabled;

/* Maybe pauses (see above); for the Swift engine's own yield points. */
void PEStressPoint(void);
/* The seed in use, and whether this build can pause at all (tests report both). */
uint64_t PEStressSeed(void);
bool PEStressPointsAvailable(void);

#if PE_STRESS_POINTS_BUILT
#define PE_STRESS_POINT() do { if (__builtin_expect(PEStressPointsEnabled, 0)) PEStressPoint(); } while (0)
#else
#define PE_STRESS_POINT() ((void)0)
#endif

#endif
