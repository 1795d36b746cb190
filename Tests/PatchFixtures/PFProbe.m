#import "PFSupport.h"
#import "PFProbeFixture.h"

@interface PFProbe : NSObject
+ (void)record:(NSString *)tag;
+ (NSString *)entries;
+ (void)reset;
+ (void)runHook;
@end

static NSMutableArray *PFProbeEntries = nil;
static NSLock *PFProbeLock = nil;
static void (*PFProbeHook)(void) = NULL;

void pf_probe_set_hook(void (*hook)(void)) { PFProbeHook = hook; }

@implementation PFProbe
+ (void)load
{
    PFProbeEntries = [NSMutableArray new];
    PFProbeLock = [NSLock new];
}
+ (void)record:(NSString *)tag
{
    NSString *entry = [NSString stringWithFormat:@"%@@%@", tag, [NSThread isMainThread] ? @"main" : @"bg"];
    [PFProbeLock lock];
    [PFProbeEntries addObject:entry];
    [PFProbeLock unlock];
}
+ (NSString *)entries
{
    [PFProbeLock lock];
    NSString *joined = [PFProbeEntries componentsJoinedByString:@","];
    [PFProbeLock unlock];
    return joined;
}
+ (void)runHook
{
    if (PFProbeHook) PFProbeHook();
}
+ (void)reset
{
    [PFProbeLock lock];
    [PFProbeEntries removeAllObjects];
    [PFProbeLock unlock];
}
@end

@interface PFWorker : NSObject
- (void)work;
- (int)compute:(int)x;
- (int)baseValue:(int)x;
@end

@implementation PFWorker
- (void)work { [PFProbe record:@"native-work"]; }
- (int)compute:(int)x { return x; }
- (int)baseValue:(int)x { return x * 10; }
@end

void pf_probe_reset(void)
{
    PF_POOL_BEGIN
        [PFProbe reset];
    PF_POOL_END
}

char *pf_probe_entries(void)
{
    PF_POOL_BEGIN
        return PFCopyString([PFProbe entries]);
    PF_POOL_END
}

int pf_probe_count(void)
{
    PF_POOL_BEGIN
        [PFProbeLock lock];
        int count = (int)[PFProbeEntries count];
        [PFProbeLock unlock];
        return count;
    PF_POOL_END
}

void pf_probe_record(const char *tag)
{
    PF_POOL_BEGIN
        [PFProbe record:[NSString stringWithUTF8String:tag]];
    PF_POOL_END
}

void pf_worker_work(void)
{
    PF_POOL_BEGIN
        @try {
            [[[PFWorker new] autorelease] work];
        } @catch (NSException *e) {
            [PFProbe record:[NSString stringWithFormat:@"raised %@", [e reason]]];
        }
    PF_POOL_END
}

int pf_worker_compute(int x)
{
    PF_POOL_BEGIN
        return [[[PFWorker new] autorelease] compute:x];
    PF_POOL_END
}
