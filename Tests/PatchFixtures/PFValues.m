#import "PFSupport.h"
#import "PFValuesFixture.h"
#import "PFNative.h"

/* Values for scripts to receive and send; describe: reports what native code received. */
@interface PFValueBox : NSObject
- (NSString *)describe:(id)object;
- (NSString *)classOf:(id)object;
- (BOOL)object:(id)object isKindOf:(NSString *)className;
- (BOOL)isSame:(id)a as:(id)b;
- (BOOL)isNil:(id)object;
- (BOOL)isNSNull:(id)object;
- (id)makeObjectOfKind:(NSString *)kind;
- (id)identityOf:(id)object;
- (id)echo:(id)object;
- (NSNumber *)echoNumber:(NSNumber *)number;
- (NSDictionary *)jsDictionary;
- (id)returnsNil;
- (NSString *)describeNil:(id)a dict:(NSDictionary *)dict str:(NSString *)str num:(double)num;
- (NSString *)wrap:(id)object label:(NSString *)label;
@end

@implementation PFValueBox
- (NSString *)describe:(id)object { return PFDescribe(object); }
- (NSString *)classOf:(id)object
{
    return object ? [NSString stringWithUTF8String:class_getName(object_getClass(object))] : @"nil";
}
- (BOOL)object:(id)object isKindOf:(NSString *)className
{
    Class cls = NSClassFromString(className);
    return cls != Nil && [object isKindOfClass:cls];
}
- (BOOL)isSame:(id)a as:(id)b { return a == b; }
- (BOOL)isNil:(id)object { return object == nil; }
- (BOOL)isNSNull:(id)object { return object != nil && [object isKindOfClass:[NSNull class]]; }
- (id)makeObjectOfKind:(NSString *)kind
{
    if ([kind isEqualToString:@"string"]) return @"stringFromOC";
    if ([kind isEqualToString:@"number"]) return [NSNumber numberWithInt:42];
    if ([kind isEqualToString:@"double"]) return [NSNumber numberWithDouble:4.5];
    if ([kind isEqualToString:@"null"]) return [NSNull null];
    if ([kind isEqualToString:@"nil"]) return nil;
    if ([kind isEqualToString:@"object"]) return [[NSObject new] autorelease];
    if ([kind isEqualToString:@"array"]) {
        return [NSArray arrayWithObjects:@"stringFromOC", [NSNumber numberWithInt:42],
                [[NSObject new] autorelease], nil];
    }
    if ([kind isEqualToString:@"dict"]) {
        return [NSDictionary dictionaryWithObjectsAndKeys:@"stringFromOC", @"str",
                [NSNumber numberWithInt:42], @"num", nil];
    }
    if ([kind isEqualToString:@"nested"]) {
        NSArray *list = [NSArray arrayWithObjects:[NSNumber numberWithInt:1], @"two",
                         [NSDictionary dictionaryWithObject:@"deep" forKey:@"inner"], nil];
        return [NSDictionary dictionaryWithObjectsAndKeys:list, @"list", @"top", @"name", nil];
    }
    return nil;
}
- (id)identityOf:(id)object { return nil; }
- (id)echo:(id)object { return object; }
- (NSNumber *)echoNumber:(NSNumber *)number { return number; }
- (NSDictionary *)jsDictionary { return nil; }
- (id)returnsNil { return nil; }
- (NSString *)describeNil:(id)a dict:(NSDictionary *)dict str:(NSString *)str num:(double)num
{
    return [NSString stringWithFormat:@"%@|%@|%@|%@", PFDescribe(a), PFDescribe(dict), PFDescribe(str),
            PFDescribe([NSNumber numberWithDouble:num])];
}
- (NSString *)wrap:(id)object label:(NSString *)label
{
    return [NSString stringWithFormat:@"%@:%@", label, PFDescribe(object)];
}
@end

int pf_values_identity(const char *kind)
{
    PF_POOL_BEGIN
        id sample = [(id)pf_make_sample(kind) autorelease];
        PFValueBox *box = [[PFValueBox new] autorelease];
        id back = [box identityOf:sample];
        if (back == nil) return -1;
        return back == sample ? 1 : 0;
    PF_POOL_END
}

char *pf_values_identity_of_nil(void)
{
    PF_POOL_BEGIN
        PFValueBox *box = [[PFValueBox new] autorelease];
        return PFCopyString(PFDescribe([box identityOf:nil]));
    PF_POOL_END
}

char *pf_values_js_dictionary(void)
{
    PF_POOL_BEGIN
        PFValueBox *box = [[PFValueBox new] autorelease];
        NSDictionary *d = [box jsDictionary];
        BOOL isDictionary = [d isKindOfClass:[NSDictionary class]];
        return PFCopyString([NSString stringWithFormat:@"%@ %@", isDictionary ? @"NSDictionary" : @"not-a-dictionary",
                             PFDescribe(d)]);
    PF_POOL_END
}

char *pf_values_wrap(const char *label)
{
    PF_POOL_BEGIN
        PFValueBox *box = [[PFValueBox new] autorelease];
        NSArray *payload = [NSArray arrayWithObjects:@"x", [NSNumber numberWithInt:1], nil];
        return PFCopyString([box wrap:payload label:[NSString stringWithUTF8String:label]]);
    PF_POOL_END
}
