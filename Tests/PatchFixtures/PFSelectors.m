#import "PFSupport.h"
#import "PFSelectorsFixture.h"

@interface PFSelectors : NSObject
- (NSString *)joinA:(NSString *)a b:(NSString *)b c:(NSString *)c;
- (NSString *)with_underscore_:(int)n;
- (NSString *)two_parts_:(int)a more_:(int)b;
- (NSString *)noArgs;
- (int)single:(int)x;
+ (NSString *)classJoin:(NSString *)a with:(NSString *)b;
@end

@implementation PFSelectors
- (NSString *)joinA:(NSString *)a b:(NSString *)b c:(NSString *)c
{
    return [NSString stringWithFormat:@"%@+%@+%@", a, b, c];
}
- (NSString *)with_underscore_:(int)n { return [NSString stringWithFormat:@"orig:%d", n]; }
- (NSString *)two_parts_:(int)a more_:(int)b { return [NSString stringWithFormat:@"orig:%d,%d", a, b]; }
- (NSString *)noArgs { return @"none"; }
- (int)single:(int)x { return x + 100; }
+ (NSString *)classJoin:(NSString *)a with:(NSString *)b { return [NSString stringWithFormat:@"%@&%@", a, b]; }
@end

static NSString *PFStr(const char *s) { return [NSString stringWithUTF8String:s]; }

#define PF_DESCRIBED(expr)                               \
    PF_POOL_BEGIN                                        \
        @try {                                           \
            return PFCopyString(PFDescribe(expr));       \
        } @catch (NSException *e) {                      \
            return PFCopyExceptionString(e);             \
        }                                                \
    PF_POOL_END

char *pf_selectors_join(const char *a, const char *b, const char *c)
{
    PF_DESCRIBED([[[PFSelectors new] autorelease] joinA:PFStr(a) b:PFStr(b) c:PFStr(c)])
}

char *pf_selectors_with_underscore(int n)
{
    PF_DESCRIBED([[[PFSelectors new] autorelease] with_underscore_:n])
}

char *pf_selectors_two_parts(int a, int b)
{
    PF_DESCRIBED([[[PFSelectors new] autorelease] two_parts_:a more_:b])
}

char *pf_selectors_no_args(void)
{
    PF_DESCRIBED([[[PFSelectors new] autorelease] noArgs])
}

int pf_selectors_single(int x)
{
    PF_POOL_BEGIN
        return [[[PFSelectors new] autorelease] single:x];
    PF_POOL_END
}

char *pf_selectors_class_join(const char *a, const char *b)
{
    PF_DESCRIBED([PFSelectors classJoin:PFStr(a) with:PFStr(b)])
}
