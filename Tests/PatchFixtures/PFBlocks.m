#import "PFSupport.h"
#import "PFBlocksFixture.h"
#include <Block.h>
#include <limits.h>

typedef NSString *(^PFStringIntBlock)(NSString *s, int n);
typedef double (^PFDoubleBlock)(double x);
typedef void (^PFVoidBlock)(void);
typedef int (^PFIntIntBlock)(int x);
typedef NSString *(^PFErrorBlock)(NSError *error);
typedef void (^PFFlagBlock)(BOOL flag, PFStringIntBlock inner);
typedef double (^PFMixedBlock)(int i, NSPoint p, double d, float f, NSString *s, long long q);
typedef NSRect (^PFRectBlock)(double scale);
typedef NSRange (^PFRangeBlock)(NSRange r, double d, NSRange s);

/* The block a script hands over for later; kept with Block_copy like any native API would. */
static PFIntIntBlock PFKeptBlock = NULL;

@interface PFBlockHost : NSObject
- (NSString *)callStringIntBlock:(PFStringIntBlock)block;
- (double)callDoubleBlock:(PFDoubleBlock)block with:(double)x;
- (BOOL)callVoidBlock:(PFVoidBlock)block;
- (NSString *)callWithNilArgument:(PFErrorBlock)block;
- (NSString *)callFlagBlock:(PFFlagBlock)block;
- (double)callMixedBlock:(PFMixedBlock)block;
- (NSString *)callRectBlock:(PFRectBlock)block;
- (NSString *)callRangeBlock:(PFRangeBlock)block;
- (PFStringIntBlock)makeJoiner;
- (PFDoubleBlock)makeScaler:(double)factor;
- (PFErrorBlock)makeErrorDescriber;
- (PFIntIntBlock)echoIntBlock:(PFIntIntBlock)block;
- (void)keepIntBlock:(PFIntIntBlock)block;
- (PFIntIntBlock)keptIntBlock;
- (PFIntIntBlock)adderProvider;
- (int)applyProvided:(int)x;
- (NSString *)transform:(NSString *)text with:(PFStringIntBlock)block;
@end

@implementation PFBlockHost
- (NSString *)callStringIntBlock:(PFStringIntBlock)block
{
    if (block == NULL) return @"no block";
    return block(@"stringFromOC", 42);
}
- (double)callDoubleBlock:(PFDoubleBlock)block with:(double)x { return block ? block(x) : -1; }
- (BOOL)callVoidBlock:(PFVoidBlock)block
{
    if (block == NULL) return NO;
    block();
    return YES;
}
- (NSString *)callWithNilArgument:(PFErrorBlock)block { return block ? block(nil) : @"no block"; }
- (NSString *)callFlagBlock:(PFFlagBlock)block
{
    __block NSString *recorded = @"inner block not called";
    PFStringIntBlock inner = ^NSString *(NSString *s, int n) {
        recorded = [[NSString alloc] initWithFormat:@"%@/%d", s, n];
        return @"inner-ok";
    };
    block(YES, inner);
    return [recorded autorelease];
}
- (double)callMixedBlock:(PFMixedBlock)block
{
    return block(1, NSMakePoint(2, 3), 4.5, 5.25f, @"6", 7LL);
}
- (NSString *)callRectBlock:(PFRectBlock)block
{
    NSRect r = block(2);
    return [NSString stringWithFormat:@"%g,%g,%g,%g", r.origin.x, r.origin.y, r.size.width, r.size.height];
}
- (NSString *)callRangeBlock:(PFRangeBlock)block
{
    NSRange r = block(NSMakeRange(10, 30), 1, NSMakeRange(1, 4));
    return [NSString stringWithFormat:@"%lu/%lu", (unsigned long)r.location, (unsigned long)r.length];
}
- (PFStringIntBlock)makeJoiner
{
    return ^NSString *(NSString *s, int n) { return [NSString stringWithFormat:@"%@-%d", s, n]; };
}
- (PFDoubleBlock)makeScaler:(double)factor
{
    /* A capturing block must live on the heap; tests make only a handful, so it is kept. */
    return Block_copy(^double(double x) { return x * factor; });
}
- (PFErrorBlock)makeErrorDescriber
{
    return ^NSString *(NSError *error) { return error ? @"error" : @"no error"; };
}
- (PFIntIntBlock)echoIntBlock:(PFIntIntBlock)block { return block; }
- (void)keepIntBlock:(PFIntIntBlock)block
{
    if (PFKeptBlock) Block_release(PFKeptBlock);
    PFKeptBlock = block ? Block_copy(block) : NULL;
}
- (PFIntIntBlock)keptIntBlock { return PFKeptBlock; }
- (PFIntIntBlock)adderProvider { return ^int(int x) { return x + 1; }; }
- (int)applyProvided:(int)x
{
    PFIntIntBlock block = [self adderProvider];
    return block ? block(x) : INT_MIN;
}
- (NSString *)transform:(NSString *)text with:(PFStringIntBlock)block { return text; }
@end

char *pf_blocks_transform(const char *text)
{
    PF_POOL_BEGIN
        @try {
            PFBlockHost *host = [[PFBlockHost new] autorelease];
            NSString *result = [host transform:[NSString stringWithUTF8String:text]
                                          with:^NSString *(NSString *s, int n) {
                return [NSString stringWithFormat:@"%@#%d", [s uppercaseString], n];
            }];
            return PFCopyString(PFDescribe(result));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

int pf_blocks_apply_provided(int x)
{
    PF_POOL_BEGIN
        return [[[PFBlockHost new] autorelease] applyProvided:x];
    PF_POOL_END
}

int pf_blocks_call_kept(int x, int *missing)
{
    *missing = PFKeptBlock == NULL;
    if (PFKeptBlock == NULL) return 0;
    PF_POOL_BEGIN
        return PFKeptBlock(x);
    PF_POOL_END
}

void pf_blocks_forget_kept(void)
{
    if (PFKeptBlock) Block_release(PFKeptBlock);
    PFKeptBlock = NULL;
}
