/* Native side of the benchmarks: subject classes and timing loops that send messages exactly as
   compiled Objective-C does, so the loop around the measured call is native, not Swift.
   Plain C so Swift can import it. Returned char * are malloc'd: free() them. */
#ifndef BENCH_FIXTURES_H
#define BENCH_FIXTURES_H
#include <stdint.h>
#include <stdbool.h>

/* The methods every subject class implements identically (see PBSubject.h):
   -empty, -(int)constant (42), -takeObject:(id), -(id)object (returns self),
   -takeRect:(NSRect) (four doubles; the loops pass PB_RECT_*). */
typedef enum PBCall {
    PBCallEmpty = 0,
    PBCallConstant = 1,
    PBCallObjectArgument = 2,
    PBCallObjectReturn = 3,
    PBCallStructArgument = 4,
} PBCall;

/* The rect the timing loops pass to -takeRect:. */
#define PB_RECT_X 1.5
#define PB_RECT_Y 2.5
#define PB_RECT_WIDTH 3.5
#define PB_RECT_HEIGHT 4.5

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

/* Floors of the JS rows, in a bare JavaScriptCore context of their own (PBJSFloors.m). The host
   floor: a JS loop of `iterations` calls of a host function whose body calls `call`'s IMP directly
   on `receiver` (the first call fixes the receiver); *result is the loop's value, as the engine's
   JS loops return it. The method floor: a JS loop calling a plain JS method and summing its
   result (1 per call). Elapsed nanoseconds, or -1 with *error (malloc'd). */
int64_t pb_js_host_floor(void *receiver, PBCall call, uint64_t iterations, double *result, char **error);
int64_t pb_js_method_floor(uint64_t iterations, double *result, char **error);
/* The builtin floors: a JS loop of `iterations` calls of `[0..7].indexOf(i & 7)` (which 0) or
   `[0..7].slice(7)` (which 1), each counting 1 into *result. */
int64_t pb_js_builtin_floor(unsigned which, uint64_t iterations, double *result, char **error);
/* Host-function calls the host floor has made, for checking that its loop really calls. */
uint64_t pb_js_host_floor_calls(void);

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

/* The floor of "Objective-C calls a JS-patched method" on the closure route: per iteration,
   the same call of `slotObject` (a subject whose methods are empty closure slots) plus one
   JSObjectCallAsFunction, in a bare JSGlobalContext, of an empty JS function taking the
   receiver and the method's arguments as JS values made beforehand (the receiver a JS object
   whose private data is `slotObject`, the rect an object {x, y, width, height}); a result is
   converted as a native caller needs it (JSValueToNumber for -constant, the object behind the
   returned JS object for -object). Returns the elapsed nanoseconds, or -1 with *error
   (malloc'd) when the call raised or JS threw. */
int64_t pb_time_js_floor(void *slotObject, PBCall call, uint64_t iterations, char **error);

/* What the floor's JS functions saw while a check was on (their body is `if (check) ...`). */
typedef struct PBJSFloorCounts {
    uint64_t calls;
    /* Calls whose receiver was not the JS value for `slotObject`. */
    uint64_t wrongReceiver;
    /* -takeObject: calls whose argument was not the receiver's JS value; -takeRect: calls whose
       argument was not {x, y, width, height} = PB_RECT_*. */
    uint64_t wrongArgument;
    /* Checked runs whose last converted result was not what the JS function returned
       (-constant: the slot's 42 + the JS 7; -object: the receiver). */
    uint64_t wrongResult;
} PBJSFloorCounts;

/* Turns the check of the floor's JS functions on (counts from zero) or off (returns the counts). */
void pb_js_floor_check_begin(void);
PBJSFloorCounts pb_js_floor_check_end(void);

#include "PBLifecycle.h"
#endif
