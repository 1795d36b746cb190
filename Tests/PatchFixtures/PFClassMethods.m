#import "PFSupport.h"
#import "PFClassMethodsFixture.h"

@interface PFFactory : NSObject
{
    NSString *_name;
    NSString *_tag;
}
+ (int)twice:(int)x;
+ (double)half:(double)x;
+ (NSString *)kind;
- (NSString *)kind;
+ (id)tagged:(PFFactory *)object;
+ (id)makeWithName:(NSString *)name;
- (NSString *)name;
- (void)setName:(NSString *)name;
- (NSString *)tag;
- (void)setTag:(NSString *)tag;
@end

@interface PFFactorySub : PFFactory
@end

@implementation PFFactory
- (void)dealloc
{
    [_name release];
    [_tag release];
    [super dealloc];
}
+ (int)twice:(int)x { return 2 * x; }
+ (double)half:(double)x { return x / 2; }
+ (NSString *)kind { return @"class-kind"; }
- (NSString *)kind { return @"instance-kind"; }
+ (id)tagged:(PFFactory *)object
{
    [object setTag:@"orig-called"];
    return nil;
}
+ (id)makeWithName:(NSString *)name
{
    PFFactory *made = [[self new] autorelease];
    [made setName:name];
    return made;
}
- (NSString *)name { return _name ? _name : @"unnamed"; }
- (void)setName:(NSString *)name { [_name autorelease]; _name = [name copy]; }
- (NSString *)tag { return _tag ? _tag : @"none"; }
- (void)setTag:(NSString *)tag { [_tag autorelease]; _tag = [tag copy]; }
@end

@implementation PFFactorySub
@end

int pf_factory_twice(const char *className, int x)
{
    PF_POOL_BEGIN
        Class cls = objc_getClass(className);
        return [(id)cls twice:x];
    PF_POOL_END
}

double pf_factory_half(double x)
{
    PF_POOL_BEGIN
        return [PFFactory half:x];
    PF_POOL_END
}

char *pf_factory_class_kind(void)
{
    PF_POOL_BEGIN
        @try {
            return PFCopyString(PFDescribe([PFFactory kind]));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

char *pf_factory_instance_kind(void)
{
    PF_POOL_BEGIN
        @try {
            return PFCopyString(PFDescribe([[[PFFactory new] autorelease] kind]));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

char *pf_factory_tagged(void)
{
    PF_POOL_BEGIN
        @try {
            PFFactory *object = [[PFFactory new] autorelease];
            id back = [PFFactory tagged:object];
            NSString *identity = back == nil ? @"nil" : (back == object ? @"same" : @"other");
            return PFCopyString([NSString stringWithFormat:@"%@ tag=%@", identity, [object tag]]);
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

char *pf_factory_make_named(const char *name)
{
    PF_POOL_BEGIN
        @try {
            id made = [PFFactory makeWithName:[NSString stringWithUTF8String:name]];
            return PFCopyString(PFDescribe([made name]));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}
