/* Stress points (PEStressPoints.h): seeded pauses at the engine's yield points, debug builds only. */
#include "PEStressPoints.h"
#include <stdlib.h>
#include <time.h>

bool PEStressPointsEnabled;
static uint64_t seed;

bool PEStressPointsAvailable(void) { return PE_STRESS_POINTS_BUILT; }
uint64_t PEStressSeed(void) { return seed; }

#if PE_STRESS_POINTS_BUILT
__attribute__((constructor)) static void readSeed(void) {
    const char *text = getenv("PATCHENGINE_STRESS_SEED");
    if (!text || !*text) return;
    seed = strtoull(text, NULL, 10);
    PEStressPointsEnabled = true;
}

static uint64_t threadsSeen;
static __thread uint64_t state;

/* xorshift64*: each thread's sequence comes from the seed and the order threads first pause. */
static uint64_t next(void) {
    if (!state) state = (seed ^ (__atomic_add_fetch(&threadsSeen, 1, __ATOMIC_RELAXED) * 0x9E3779B97F4A7C15ull)) | 1;
    state ^= state >> 12; state ^= state << 25; state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
}

void PEStressPoint(void) {
    if (!PEStressPointsEnabled) return;
    uint64_t r = next();
    switch (r & 15) {
        case 0: case 1: {
            /* A thread descheduled mid-step: 1-300 µs. */
            struct timespec pause = { 0, (long)(1000 + (r >> 8) % 299000) };
            nanosleep(&pause, NULL);
            break;
        }
        case 2: case 3: {
            /* The shortest sleep: the thread gives up its core, as a yield would. */
            struct timespec pause = { 0, 1 };
            nanosleep(&pause, NULL);
            break;
        }
        default: break;
    }
}
#else
void PEStressPoint(void) {}
#endif
