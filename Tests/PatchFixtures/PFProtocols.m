#import "PFSupport.h"
#import "PFProtocolsFixture.h"

typedef void (^PFCompletion)(int code);

@protocol PFShapeSource <NSObject>
- (NSRect)boundsForScale:(double)scale;
- (SEL)preferredAction;
- (int)runWithCompletion:(PFCompletion)done;
- (NSRange)rangeForName:(NSString *)name;
+ (int)instanceLimit;
@optional
- (double)weightFor:(float)f;
@end

@protocol PFNamed
- (NSString *)displayName;
@end

/* A native implementation: registers the protocols with the runtime and shows the
   expected native behaviour. */
@interface PFShapeReference : NSObject <PFShapeSource, PFNamed>
@end

@implementation PFShapeReference
- (NSRect)boundsForScale:(double)scale { return NSMakeRect(0, 0, 10 * scale, 5 * scale); }
- (SEL)preferredAction { return sel_registerName("redraw:"); }
- (int)runWithCompletion:(PFCompletion)done
{
    done(7);
    return 1;
}
- (NSRange)rangeForName:(NSString *)name { return NSMakeRange(1, [name length]); }
+ (int)instanceLimit { return 3; }
- (double)weightFor:(float)f { return f * 2; }
- (NSString *)displayName { return @"reference"; }
@end

static id<PFShapeSource, PFNamed> PFNewShape(const char *className)
{
    /* Referencing the protocols here keeps them registered under their names. */
    (void)@protocol(PFShapeSource);
    (void)@protocol(PFNamed);
    return [[objc_getClass(className) new] autorelease];
}

PFRectC pf_shape_bounds(const char *className, double scale, int *raised)
{
    PFRectC result = { 0, 0, 0, 0 };
    *raised = 0;
    PF_POOL_BEGIN
        @try {
            NSRect r = [PFNewShape(className) boundsForScale:scale];
            result.x = r.origin.x; result.y = r.origin.y; result.width = r.size.width; result.height = r.size.height;
        } @catch (NSException *e) {
            *raised = 1;
        }
        return result;
    PF_POOL_END
}

char *pf_shape_action(const char *className)
{
    PF_POOL_BEGIN
        @try {
            SEL sel = [PFNewShape(className) preferredAction];
            return strdup(sel ? sel_getName(sel) : "nil");
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}

int pf_shape_run(const char *className, int *code, int *raised)
{
    __block int received = -1;
    *raised = 0;
    int result = 0;
    PF_POOL_BEGIN
        @try {
            result = [PFNewShape(className) runWithCompletion:^(int c) { received = c; }];
        } @catch (NSException *e) {
            *raised = 1;
        }
    PF_POOL_END
    *code = received;
    return result;
}

PFRangeC pf_shape_range(const char *className, const char *name, int *raised)
{
    PFRangeC result = { 0, 0 };
    *raised = 0;
    PF_POOL_BEGIN
        @try {
            NSRange r = [PFNewShape(className) rangeForName:[NSString stringWithUTF8String:name]];
            result.location = r.location; result.length = r.length;
        } @catch (NSException *e) {
            *raised = 1;
        }
        return result;
    PF_POOL_END
}

int pf_shape_limit(const char *className, int *raised)
{
    *raised = 0;
    PF_POOL_BEGIN
        @try {
            return [(Class<PFShapeSource>)objc_getClass(className) instanceLimit];
        } @catch (NSException *e) {
            *raised = 1;
            return 0;
        }
    PF_POOL_END
}

double pf_shape_weight(const char *className, float f, int *raised)
{
    *raised = 0;
    PF_POOL_BEGIN
        @try {
            return [PFNewShape(className) weightFor:f];
        } @catch (NSException *e) {
            *raised = 1;
            return 0;
        }
    PF_POOL_END
}

char *pf_shape_display_name(const char *className)
{
    PF_POOL_BEGIN
        @try {
            return PFCopyString(PFDescribe([PFNewShape(className) displayName]));
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PF_POOL_END
}
