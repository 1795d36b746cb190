#import "PFSupport.h"
#import "PFLockDropFixture.h"
#include <pthread.h>
#include <time.h>

enum { PFGateCount = 32 };
static pthread_mutex_t gateMutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gateChanged = PTHREAD_COND_INITIALIZER;
static int reached[PFGateCount], opened[PFGateCount];
static _Thread_local int pauseGate = -1;

static struct timespec deadlineAfter(double seconds)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    long long ns = (long long)t.tv_nsec + (long long)(seconds * 1e9);
    t.tv_sec += (time_t)(ns / 1000000000LL);
    t.tv_nsec = (long)(ns % 1000000000LL);
    return t;
}

/* Marks `gate` reached and waits until it is opened; 0 after `seconds`. */
static int reachAndWaitWithin(int gate, double seconds)
{
    if (gate < 0 || gate >= PFGateCount) return 0;
    struct timespec deadline = deadlineAfter(seconds);
    int ok = 1;
    pthread_mutex_lock(&gateMutex);
    reached[gate] = 1;
    pthread_cond_broadcast(&gateChanged);
    while (!opened[gate]) {
        if (pthread_cond_timedwait(&gateChanged, &gateMutex, &deadline) != 0 && !opened[gate]) { ok = 0; break; }
    }
    pthread_mutex_unlock(&gateMutex);
    return ok;
}

static int reachAndWait(int gate) { return reachAndWaitWithin(gate, 30); }

@interface PFGate : NSObject
+ (int)pass:(int)gate;
+ (int)pass:(int)gate within:(double)seconds;
+ (void)open:(int)gate;
+ (void)armPause:(int)gate;
- (int)run:(int)gate;
- (int)outer:(int)gate;
- (int)runNested:(int)gate;
@end

@implementation PFGate
+ (int)pass:(int)gate { return reachAndWait(gate) ? gate : -1; }
+ (int)pass:(int)gate within:(double)seconds { return reachAndWaitWithin(gate, seconds) ? gate : -1; }
+ (void)open:(int)gate { pf_gate_open(gate); }
+ (void)armPause:(int)gate { pauseGate = gate; }
- (int)run:(int)gate { return -gate; }
- (int)outer:(int)gate { return -gate; }
- (int)runNested:(int)gate
{
    if (!reachAndWait(gate + 10)) return -1;
    return [self run:gate];
}
@end

void pf_gate_reset(void)
{
    pthread_mutex_lock(&gateMutex);
    memset(reached, 0, sizeof reached);
    memset(opened, 0, sizeof opened);
    pthread_mutex_unlock(&gateMutex);
}

int pf_gate_wait_reached(int gate, double seconds)
{
    if (gate < 0 || gate >= PFGateCount) return 0;
    struct timespec deadline = deadlineAfter(seconds);
    pthread_mutex_lock(&gateMutex);
    while (!reached[gate]) {
        if (pthread_cond_timedwait(&gateChanged, &gateMutex, &deadline) != 0 && !reached[gate]) break;
    }
    int result = reached[gate];
    pthread_mutex_unlock(&gateMutex);
    return result;
}

void pf_gate_open(int gate)
{
    if (gate < 0 || gate >= PFGateCount) return;
    pthread_mutex_lock(&gateMutex);
    opened[gate] = 1;
    pthread_cond_broadcast(&gateChanged);
    pthread_mutex_unlock(&gateMutex);
}

static int sendGate(SEL selector, int gate)
{
    int result = 0;
    PF_POOL_BEGIN
        PFGate *object = [PFGate new];
        @try {
            result = ((int (*)(id, SEL, int))PF_LOOKUP(object, selector))(object, selector, gate);
        } @catch (NSException *e) {
            result = -1000;
        }
        [object release];
    PF_POOL_END
    return result;
}

int pf_gate_pass(int gate, double seconds) { return reachAndWaitWithin(gate, seconds); }
int pf_gate_run(int gate) { return sendGate(@selector(run:), gate); }
int pf_gate_outer(int gate) { return sendGate(@selector(outer:), gate); }

void pf_gate_before_push(void)
{
    if (pauseGate < 0) return;
    int gate = pauseGate;
    pauseGate = -1;
    reachAndWait(gate);
}

void pf_gate_arm_pause(int gate) { pauseGate = gate; }
