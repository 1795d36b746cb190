#import "PFSupport.h"
#import "PFLateInitializeFixture.h"
#import "PFConcurrencyFixture.h"
#import "PFBlocksFixture.h"

static int done, mixed, blockResult;

@interface PFLateInitialize : NSObject
@end

@implementation PFLateInitialize
+ (void)initialize
{
    if (self != [PFLateInitialize class]) return;
    void *accumulator = pf_accumulator_new(9);
    int result = pf_accumulator_mix(accumulator, 3);
    [(id)accumulator release];
    int missing = 0;
    int kept = pf_blocks_call_kept(4, &missing);
    mixed = result;
    blockResult = missing ? -1 : kept;
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}
@end

int pf_late_initialize_done(void) { return __atomic_load_n(&done, __ATOMIC_ACQUIRE); }
int pf_late_initialize_mixed(void) { return mixed; }
int pf_late_initialize_block_result(void) { return blockResult; }
