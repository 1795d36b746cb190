#import "PFSupport.h"
#import "PFOverrideFixture.h"

@interface PFGreeter : NSObject
{
    NSString *_mood;
}
- (NSString *)greet:(NSString *)name;
- (NSString *)greetTwice:(NSString *)name;
- (NSString *)describeValue:(double)value label:(NSString *)label;
- (void)setMood:(NSString *)mood;
- (NSString *)mood;
- (NSUInteger)countOf:(NSString *)text;
- (NSString *)format:(NSString *)text view:(id)view count:(NSInteger)count;
- (id)viewOrNil:(id)view;
@end

@implementation PFGreeter
- (void)dealloc
{
    [_mood release];
    [super dealloc];
}
- (NSString *)greet:(NSString *)name { return [NSString stringWithFormat:@"Hello, %@", name]; }
- (NSString *)greetTwice:(NSString *)name
{
    return [NSString stringWithFormat:@"%@ & %@", [self greet:name], [self greet:name]];
}
- (NSString *)describeValue:(double)value label:(NSString *)label
{
    return [NSString stringWithFormat:@"%@=%g", label, value];
}
- (void)setMood:(NSString *)mood
{
    [_mood autorelease];
    _mood = [mood copy];
}
- (NSString *)mood { return _mood ? _mood : @"none"; }
- (NSUInteger)countOf:(NSString *)text { return [text length]; }
- (NSString *)format:(NSString *)text view:(id)view count:(NSInteger)count
{
    return [NSString stringWithFormat:@"%@/%s/%ld", text, view ? class_getName(object_getClass(view)) : "nil", (long)count];
}
- (id)viewOrNil:(id)view { return nil; }
@end

static PFGreeter *PFNewGreeter(void) { return [[PFGreeter new] autorelease]; }
static NSString *PFStr(const char *s) { return s ? [NSString stringWithUTF8String:s] : nil; }

char *pf_greeter_greet(const char *name)
{
    PF_POOL_BEGIN
        @try {
            return PFCopyString(PFDescribe([PFNewGreeter() greet:PFStr(name)]));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

char *pf_greeter_greet_twice(const char *name)
{
    PF_POOL_BEGIN
        @try {
            return PFCopyString(PFDescribe([PFNewGreeter() greetTwice:PFStr(name)]));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

char *pf_greeter_describe_value(double value, const char *label)
{
    PF_POOL_BEGIN
        @try {
            return PFCopyString(PFDescribe([PFNewGreeter() describeValue:value label:PFStr(label)]));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

char *pf_greeter_mood_after_setting(const char *mood)
{
    PF_POOL_BEGIN
        @try {
            PFGreeter *greeter = PFNewGreeter();
            [greeter setMood:PFStr(mood)];
            return PFCopyString(PFDescribe([greeter mood]));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

unsigned long pf_greeter_count(const char *text)
{
    PF_POOL_BEGIN
        return (unsigned long)[PFNewGreeter() countOf:PFStr(text)];
    PF_POOL_END
}

char *pf_greeter_format(const char *text, long count)
{
    PF_POOL_BEGIN
        @try {
            id view = [[NSObject new] autorelease];
            return PFCopyString(PFDescribe([PFNewGreeter() format:PFStr(text) view:view count:count]));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

char *pf_greeter_view_or_nil(int passNil)
{
    PF_POOL_BEGIN
        @try {
            id view = passNil ? nil : [[NSObject new] autorelease];
            id back = [PFNewGreeter() viewOrNil:view];
            if (back != nil && back == view) return strdup("same object");
            return PFCopyString(PFDescribe(back));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}
