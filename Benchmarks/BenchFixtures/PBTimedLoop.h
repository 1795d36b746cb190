/* The shape of every native timing loop (PBCallLoops.m, PBJSCallFloor.m): `statement` runs
   `iterations` times between two clock reads, with an autorelease pool drained every
   PB_POOL_STRIDE calls as a run loop would. Expects uint64_t start, end and iterations in scope. */
#ifndef PB_TIMED_LOOP_H
#define PB_TIMED_LOOP_H
#import <Foundation/Foundation.h>
#include "BenchFixtures.h"

/* Calls between pool drains: often enough to bound memory (the forwarding route autoreleases an
   NSInvocation per call), rare enough to cost nothing per call. */
#define PB_POOL_STRIDE 4096

#define PB_TIMED_LOOP(statement) \
    do { \
        start = pb_now_ns(); \
        for (uint64_t done = 0; done < iterations; ) { \
            uint64_t chunk = iterations - done < PB_POOL_STRIDE ? iterations - done : PB_POOL_STRIDE; \
            NSAutoreleasePool *pool = [NSAutoreleasePool new]; \
            for (uint64_t i = 0; i < chunk; i++) { statement; } \
            [pool release]; \
            done += chunk; \
        } \
        end = pb_now_ns(); \
    } while (0)

#endif
