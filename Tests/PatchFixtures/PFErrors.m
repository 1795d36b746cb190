#import "PFSupport.h"
#import "PFErrorsFixture.h"

@interface PFFailing : NSObject
{
    NSMutableArray *_voidLog;
}
- (BOOL)loadNamed:(NSString *)name error:(NSError **)error;
- (void)explode:(NSString *)reason;
- (int)explodeWithValue;
- (int)riskyValue;
- (NSString *)riskyName;
- (NSRect)riskyRect;
- (double)riskyDouble;
- (void)riskyVoid;
- (NSString *)voidLog;
@end

@implementation PFFailing
- (id)init
{
    if ((self = [super init])) _voidLog = [NSMutableArray new];
    return self;
}
- (void)dealloc
{
    [_voidLog release];
    [super dealloc];
}
- (BOOL)loadNamed:(NSString *)name error:(NSError **)error
{
    if ([name isEqualToString:@"bad"]) {
        if (error) {
            NSDictionary *info = [NSDictionary dictionaryWithObject:@"bad name" forKey:@"reason"];
            *error = [NSError errorWithDomain:@"PFErrorDomain" code:42 userInfo:info];
        }
        return NO;
    }
    return YES;
}
- (void)explode:(NSString *)reason
{
    [NSException raise:@"PFExplosion" format:@"%@", reason];
}
- (int)explodeWithValue
{
    [NSException raise:@"PFExplosion" format:@"value exploded"];
    return 0;
}
- (int)riskyValue { return 7; }
- (NSString *)riskyName { return @"safe"; }
- (NSRect)riskyRect { return NSMakeRect(1, 2, 3, 4); }
- (double)riskyDouble { return 2.5; }
- (void)riskyVoid { [_voidLog addObject:@"orig-void"]; }
- (NSString *)voidLog { return [_voidLog componentsJoinedByString:@","]; }
@end

static PFFailing *PFNewFailing(void) { return [[PFFailing new] autorelease]; }

int pf_failing_load(const char *name, char **errorText, int *raised)
{
    *raised = 0;
    *errorText = NULL;
    PF_POOL_BEGIN
        @try {
            NSError *error = nil;
            BOOL ok = [PFNewFailing() loadNamed:[NSString stringWithUTF8String:name] error:&error];
            if (error) {
                *errorText = PFCopyString([NSString stringWithFormat:@"%@/%ld/%@", [error domain], (long)[error code],
                                           [[error userInfo] objectForKey:@"reason"]]);
            }
            return ok ? 1 : 0;
        } @catch (NSException *e) {
            *raised = 1;
            return 0;
        }
    PF_POOL_END
}

int pf_failing_load_without_error_pointer(const char *name, int *raised)
{
    *raised = 0;
    PF_POOL_BEGIN
        @try {
            return [PFNewFailing() loadNamed:[NSString stringWithUTF8String:name] error:NULL] ? 1 : 0;
        } @catch (NSException *e) {
            *raised = 1;
            return 0;
        }
    PF_POOL_END
}

int pf_failing_risky_value(int *raised)
{
    *raised = 0;
    PF_POOL_BEGIN
        @try {
            return [PFNewFailing() riskyValue];
        } @catch (NSException *e) {
            *raised = 1;
            return 0;
        }
    PF_POOL_END
}

char *pf_failing_risky_name(int *raised)
{
    *raised = 0;
    PF_POOL_BEGIN
        @try {
            return PFCopyString(PFDescribe([PFNewFailing() riskyName]));
        } @catch (NSException *e) {
            *raised = 1;
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

PFRectC pf_failing_risky_rect(int *raised)
{
    PFRectC result = { 0, 0, 0, 0 };
    *raised = 0;
    PF_POOL_BEGIN
        @try {
            NSRect r = [PFNewFailing() riskyRect];
            result.x = r.origin.x; result.y = r.origin.y; result.width = r.size.width; result.height = r.size.height;
        } @catch (NSException *e) {
            *raised = 1;
        }
        return result;
    PF_POOL_END
}

double pf_failing_risky_double(int *raised)
{
    *raised = 0;
    PF_POOL_BEGIN
        @try {
            return [PFNewFailing() riskyDouble];
        } @catch (NSException *e) {
            *raised = 1;
            return 0;
        }
    PF_POOL_END
}

char *pf_failing_risky_void(int *raised)
{
    *raised = 0;
    PF_POOL_BEGIN
        @try {
            PFFailing *failing = PFNewFailing();
            [failing riskyVoid];
            return PFCopyString([failing voidLog]);
        } @catch (NSException *e) {
            *raised = 1;
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}
