/* Native side of the benchmarks: subject classes and timing loops that send messages exactly as
   compiled Objective-C does, so the loop around the measured call is native, not Swift.
   Plain C so Swift can import it. Returned char * are malloc'd: free() them. */
#ifndef BENCH_FIXTURES_H
#define BENCH_FIXTURES_H
#include <stdint.h>
#include <stdbool.h>

/* The methods every subject class implements identically (see PBSubject.h):
   -empty, -(int)constant (42), -takeObject:(id), -(id)object (returns self). */
typedef enum PBCall {
    PBCallEmpty = 0,
    PBCallConstant = 1,
    PBCallObjectArgument = 2,
    PBCallObjectReturn = 3,
} PBCall;

/* The value -constant returns when it is not patched. */
#define PB_NATIVE_CONSTANT 42

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t pb_now_ns(void);

/* Stores into a volatile variable: Swift cannot prove a value passed here is unused, so the work
   that produced it is never optimised away. */
void pb_consume(int64_t value);

/* Brings Foundation up the way a running app has it (an autorelease pool, a string, a thread
   registered), so a start-up measurement is not charged for Foundation's own initialisation. */
void pb_prepare_process(void);

/* [[className alloc] init], retained (+1); NULL when the class does not exist. */
void *pb_new(const char *className);
void pb_release(void *object);

/* Sends `call` to `object` `iterations` times in a tight native loop and returns the elapsed
   nanoseconds. The takeObject: argument is the receiver itself (no allocation in the loop).
   An autorelease pool is drained every 4096 calls, as a run loop would. Returns -1 and sets
   *error (malloc'd) when a call raised an Objective-C exception. */
int64_t pb_time_calls(void *object, PBCall call, uint64_t iterations, char **error);

/* One native call, for checking what the loop measures: the result of -constant, or of -object
   (not retained). -1 / NULL with *error when it raised. */
int pb_call_constant(void *object, char **error);
void *pb_call_object(void *object, char **error);

/* Hooks -empty of every instance of the class named `className` (object NULL), or of `object` only,
   through the Aspects API: an empty Before block and an empty After block. The hooks stay for the
   life of the process. Route: whatever PESetDefaultRoute says when the method is first hooked.
   false with *error (malloc'd: the refusal's domain, code and message) when a hook is refused. */
bool pb_hook_empty(const char *className, void *object, char **error);

/* What the hook blocks saw during a verification pass. */
typedef struct PBHookCounts {
    uint64_t before, after;
    /* Runs where Before and After did not alternate (Before, After, Before, After, ...). */
    uint64_t outOfOrder;
    /* Runs whose info object's -instance was not `expectedInstance`. */
    uint64_t wrongInstance;
    void *expectedInstance;
} PBHookCounts;

/* Starts a verification pass: the hook blocks count their runs from zero until
   pb_hook_counting_end, which returns the counts. Outside a pass the blocks do nothing. */
void pb_hook_counting_begin(void *expectedInstance);
PBHookCounts pb_hook_counting_end(void);

#include "PBLifecycle.h"
#endif
