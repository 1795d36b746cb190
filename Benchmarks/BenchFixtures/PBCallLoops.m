/* The native timing loops. The loop, the message sends and the clock reads are all compiled
   Objective-C, so what is measured is what a native caller pays per call. */
#import "PBSubject.h"
#import "PBTimedLoop.h"
#include <objc/runtime.h>
#include <string.h>
#include <time.h>

static volatile int pbIntSink;
static id volatile pbReturnSink;

uint64_t pb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile int64_t pbConsumed;
void pb_consume(int64_t value) { pbConsumed = value; }

void pb_prepare_process(void)
{
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    NSString *warm = [NSString stringWithFormat:@"%s %d", "warm", 1];
    pbReturnSink = [NSThread currentThread];
    pbReturnSink = warm;
    pbReturnSink = nil;
    [pool release];
}

void *pb_new(const char *className)
{
    Class cls = objc_getClass(className);
    if (cls == Nil) return NULL;
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    id object = [[cls alloc] init];
    [pool release];
    return object;
}

void pb_release(void *object) { [(id)object release]; }

static char *copyExceptionText(NSException *e)
{
    NSString *text = [NSString stringWithFormat:@"%@: %@", [e name], [e reason]];
    return strdup([text UTF8String]);
}

/* One loop per call kind, so no branch on the kind runs inside the timed loop. */

int64_t pb_time_calls(void *objectPtr, PBCall call, uint64_t iterations, char **error)
{
    id<PBSubject> object = (id<PBSubject>)objectPtr;
    uint64_t start = 0, end = 0;
    @try {
        switch (call) {
            case PBCallEmpty: PB_TIMED_LOOP([object empty]); break;
            case PBCallConstant: PB_TIMED_LOOP(pbIntSink = [object constant]); break;
            case PBCallObjectArgument: PB_TIMED_LOOP([object takeObject:object]); break;
            case PBCallObjectReturn: PB_TIMED_LOOP(pbReturnSink = [object object]); break;
            case PBCallStructArgument: {
                NSRect rect = pbLoopRect();
                PB_TIMED_LOOP([object takeRect:rect]);
                break;
            }
            default:
                if (error) *error = strdup("unknown call kind");
                return -1;
        }
    } @catch (NSException *e) {
        if (error) *error = copyExceptionText(e);
        return -1;
    }
    pbReturnSink = nil;
    pbObjectSink = nil;
    return (int64_t)(end - start);
}

int pb_call_constant(void *object, char **error)
{
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    int result = -1;
    @try {
        result = [(id<PBSubject>)object constant];
    } @catch (NSException *e) {
        if (error) *error = copyExceptionText(e);
    }
    [pool release];
    return result;
}

void *pb_call_object(void *object, char **error)
{
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    id result = nil;
    @try {
        result = [(id<PBSubject>)object object];
    } @catch (NSException *e) {
        if (error) *error = copyExceptionText(e);
    }
    [pool release];
    return result;
}
