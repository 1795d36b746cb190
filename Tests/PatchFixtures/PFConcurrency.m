#import "PFSupport.h"
#import "PFConcurrencyFixture.h"

@interface PFAccumulator : NSObject
{
    int _objectId;
    NSMutableArray *_values;
}
- (id)initWithObjectId:(int)objectId;
- (int)objectId;
- (void)addValue:(NSNumber *)number;
- (void)addValueIndirect:(NSNumber *)number;
- (int)mix:(int)x;
- (NSArray *)values;
@end

@implementation PFAccumulator
- (id)initWithObjectId:(int)objectId
{
    if ((self = [super init])) {
        _objectId = objectId;
        _values = [[NSMutableArray alloc] initWithObjects:[NSNumber numberWithInt:-1], nil];
    }
    return self;
}
- (void)dealloc
{
    [_values release];
    [super dealloc];
}
- (int)objectId { return _objectId; }
- (void)addValue:(NSNumber *)number
{
    if ([_values count] > 0 && [[_values objectAtIndex:0] intValue] < 0) [_values removeAllObjects];
    [_values addObject:number ? number : (id)[NSNull null]];
}
- (void)addValueIndirect:(NSNumber *)number {}
- (int)mix:(int)x { return _objectId * 100000 + x; }
- (NSArray *)values { return _values; }
@end

void *pf_accumulator_new(int objectId)
{
    PF_POOL_BEGIN
        return [[PFAccumulator alloc] initWithObjectId:objectId];
    PF_POOL_END
}

void pf_accumulator_add(void *accumulator, int value)
{
    PF_POOL_BEGIN
        @try {
            [(PFAccumulator *)accumulator addValue:[NSNumber numberWithInt:value]];
        } @catch (NSException *e) {
            /* A lost value shows up in pf_accumulator_count; the process must survive. */
        }
    PF_POOL_END
}

void pf_accumulator_add_indirect(void *accumulator, int value)
{
    PF_POOL_BEGIN
        @try {
            [(PFAccumulator *)accumulator addValueIndirect:[NSNumber numberWithInt:value]];
        } @catch (NSException *e) {
            /* As above: the count check reports it. */
        }
    PF_POOL_END
}

int pf_accumulator_mix(void *accumulator, int x)
{
    int result = -1;
    PF_POOL_BEGIN
        @try {
            result = [(PFAccumulator *)accumulator mix:x];
        } @catch (NSException *e) {
            result = -2;
        }
    PF_POOL_END
    return result;
}

int pf_accumulator_count(void *accumulator)
{
    PF_POOL_BEGIN
        return (int)[[(PFAccumulator *)accumulator values] count];
    PF_POOL_END
}

int pf_accumulator_all_equal(void *accumulator, int expected)
{
    PF_POOL_BEGIN
        for (id value in [(PFAccumulator *)accumulator values]) {
            if (![value isKindOfClass:[NSNumber class]] || [value intValue] != expected) return 0;
        }
        return 1;
    PF_POOL_END
}

char *pf_accumulator_values(void *accumulator)
{
    PF_POOL_BEGIN
        return PFCopyString(PFDescribe([(PFAccumulator *)accumulator values]));
    PF_POOL_END
}
