#import "PFSupport.h"
#import "PFEnumerationFixture.h"

/* An NSDictionary subclass with only the primitives (count, objectForKey:, keyEnumerator), as
   libraries write them (OrderedDictionary): no -countByEnumeratingWithState:objects:count:. */
@interface PFPlainDictionary : NSDictionary {
    NSArray *_keys;
    NSArray *_values;
}
@end

@implementation PFPlainDictionary
- (instancetype)initWithObjects:(const id [])objects forKeys:(const id <NSCopying> [])keys count:(NSUInteger)count
{
    if ((self = [super init])) {
        _keys = [[NSArray alloc] initWithObjects:(id *)keys count:count];
        _values = [[NSArray alloc] initWithObjects:(id *)objects count:count];
    }
    return self;
}
- (void)dealloc { [_keys release]; [_values release]; [super dealloc]; }
- (NSUInteger)count { return [_keys count]; }
- (id)objectForKey:(id)key
{
    NSUInteger i = [_keys indexOfObject:key];
    return i == NSNotFound ? nil : [_values objectAtIndex:i];
}
- (NSEnumerator *)keyEnumerator { return [_keys objectEnumerator]; }
@end

@interface PFEnumerationProbe : NSObject
- (NSString *)describe:(NSDictionary *)dictionary;
@end

@implementation PFEnumerationProbe
- (NSString *)describe:(NSDictionary *)dictionary { return @"native"; }
@end

char *pf_enumeration_describe(int which)
{
    PF_POOL_BEGIN
        NSDictionary *d;
        switch (which) {
        case 1: d = [[[PFPlainDictionary alloc] initWithObjects:(id[]){@"1", @"2"} forKeys:(id[]){@"a", @"b"} count:2] autorelease]; break;
        case 2: d = [NSDictionary dictionaryWithObjects:(id[]){@"1", @"2", @"3"} forKeys:(id[]){@"stop", @"x", @"y"} count:3]; break;
        default: d = [NSDictionary dictionaryWithObjects:(id[]){@"1", @"2"} forKeys:(id[]){@"a", @"b"} count:2]; break;
        }
        @try { return PFCopyString([[[PFEnumerationProbe new] autorelease] describe:d]); }
        @catch (NSException *e) { return PFCopyExceptionString(e); }
    PF_POOL_END
}

char *pf_enumeration_native_keys_and_objects(void)
{
    PF_POOL_BEGIN
        NSDictionary *d = [[[PFPlainDictionary alloc] initWithObjects:(id[]){@"1", @"2"} forKeys:(id[]){@"a", @"b"} count:2] autorelease];
        NSMutableArray *seen = [NSMutableArray array];
        @try {
            [d enumerateKeysAndObjectsUsingBlock:^(id key, id value, BOOL *stop) { [seen addObject:[key stringByAppendingString:value]]; }];
            return PFCopyString([seen componentsJoinedByString:@","]);
        }
        @catch (NSException *e) { return PFCopyExceptionString(e); }
    PF_POOL_END
}
