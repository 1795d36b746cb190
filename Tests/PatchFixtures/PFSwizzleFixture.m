/* RSSwizzle's test classes and swizzle layers installed through PESwizzle. */
#import "PFToolkitSupport.h"
#import "PFSwizzleFixture.h"
#import "PFToolkitFixture.h"

@interface NSObject (PFRsMethods)
- (int)calc:(int)number;
- (BOOL)methodReturningBOOL;
- (void)methodWithArgument:(id)argument;
- (NSString *)string;
+ (NSNumber *)sumFloat:(float)f withDouble:(double)d;
@end

#define PF_RS_FAMILY(F) \
@interface F##A : NSObject @end \
@implementation F##A \
- (int)calc:(int)number { return number; } \
- (BOOL)methodReturningBOOL { return YES; } \
- (void)methodWithArgument:(id)argument {} \
- (void)methodForAlwaysSwizzling {} \
- (void)methodForSwizzlingOncePerClass {} \
- (void)methodForSwizzlingOncePerClassOrSuperClasses {} \
- (NSString *)string { return @"ABC"; } \
+ (NSNumber *)sumFloat:(float)f withDouble:(double)d { return [NSNumber numberWithDouble:f + d]; } \
@end \
@interface F##B : F##A @end \
@implementation F##B @end \
@interface F##C : F##B @end \
@implementation F##C \
- (void)dealloc { PFTkLog(@"C"); [super dealloc]; } \
- (int)calc:(int)number { return [super calc:number] * 3; } \
@end \
@interface F##D : F##C @end \
@implementation F##D @end \
@interface F##D2 : F##C @end \
@implementation F##D2 @end

PF_RS_FAMILY(PFRs1) PF_RS_FAMILY(PFRs2) PF_RS_FAMILY(PFRs3) PF_RS_FAMILY(PFRs4)
PF_RS_FAMILY(PFRs5) PF_RS_FAMILY(PFRs6) PF_RS_FAMILY(PFRs7) PF_RS_FAMILY(PFRs8)
PF_RS_FAMILY(PFRs9) PF_RS_FAMILY(PFRs10) PF_RS_FAMILY(PFRs11) PF_RS_FAMILY(PFRs12)
PF_RS_FAMILY(PFRs13) PF_RS_FAMILY(PFRs14) PF_RS_FAMILY(PFRs15) PF_RS_FAMILY(PFRs16)
PF_RS_FAMILY(PFRs17) PF_RS_FAMILY(PFRs18) PF_RS_FAMILY(PFRs19) PF_RS_FAMILY(PFRs20)
PF_RS_FAMILY(PFRs21) PF_RS_FAMILY(PFRs22) PF_RS_FAMILY(PFRs23) PF_RS_FAMILY(PFRs24)

/* Keeps the token, or reports the error ("nil with no error" leaves *error NULL). */
static int keep(id<PESwizzleToken> token, NSError *failure, char **error)
{
    if (token) return PFTkKeep(token);
    if (failure && error) *error = PFCopyString([failure localizedDescription]);
    return 0;
}

/* Keys must be stable addresses: one per distinct key string. */
static const void *keyFor(const char *key) { return key ? (const void *)PFTkIntern(key) : NULL; }

int pf_swizzle_calc(const char *className, char op, int operand, char **error)
{
    PFTK_BEGIN
        NSError *failure = nil;
        id token = [PESwizzle swizzleInstanceMethod:@selector(calc:) inClass:objc_getClass(className)
                                               mode:PESwizzleModeAlways key:NULL error:&failure
                                         usingBlock:(id)^int(PESwizzleInfo *info, id self, int number) {
            int (*original)(id, SEL, int) = (int (*)(id, SEL, int))[info originalImplementation];
            int result = original(self, [info selector], number);
            PFTkLogFormat(@"%c%d", op, operand);
            switch (op) {
                case '+': return result + operand;
                case '-': return result - operand;
                default: return result * operand;
            }
        }];
        return keep(token, failure, error);
    PFTK_END
}

int pf_swizzle_void(const char *className, const char *selector, int mode, const char *key,
                    const char *label, char **error)
{
    PFTK_BEGIN
        const char *text = PFTkIntern(label);
        NSError *failure = nil;
        id token = [PESwizzle swizzleInstanceMethod:sel_registerName(selector) inClass:objc_getClass(className)
                                               mode:(PESwizzleMode)mode key:keyFor(key) error:&failure
                                         usingBlock:(id)^(PESwizzleInfo *info, id self) {
            PFTkLog([NSString stringWithUTF8String:text]);
            ((void (*)(id, SEL))[info originalImplementation])(self, [info selector]);
        }];
        return keep(token, failure, error);
    PFTK_END
}

int pf_swizzle_step(const char *className, const char *label, char **error)
{
    PFTK_BEGIN
        const char *text = PFTkIntern(label);
        NSError *failure = nil;
        id token = [PESwizzle swizzleInstanceMethod:@selector(step) inClass:objc_getClass(className)
                                               mode:PESwizzleModeAlways key:NULL error:&failure
                                         usingBlock:(id)^NSString *(PESwizzleInfo *info, id self) {
            PFTkLog([NSString stringWithUTF8String:text]);
            NSString *result = ((NSString *(*)(id, SEL))[info originalImplementation])(self, [info selector]);
            return [result stringByAppendingFormat:@">%s", text];
        }];
        return keep(token, failure, error);
    PFTK_END
}

int pf_swizzle_kind(const char *className, const char *label, char **error)
{
    PFTK_BEGIN
        const char *text = PFTkIntern(label);
        NSError *failure = nil;
        id token = [PESwizzle swizzleClassMethod:@selector(kind) inClass:objc_getClass(className) error:&failure
                                      usingBlock:(id)^NSString *(PESwizzleInfo *info, id self) {
            PFTkLog([NSString stringWithUTF8String:text]);
            NSString *result = ((NSString *(*)(id, SEL))[info originalImplementation])(self, [info selector]);
            return [result stringByAppendingFormat:@">%s", text];
        }];
        return keep(token, failure, error);
    PFTK_END
}

int pf_swizzle_add(const char *className, int offset, char **error)
{
    PFTK_BEGIN
        NSError *failure = nil;
        id token = [PESwizzle swizzleInstanceMethod:@selector(add:to:) inClass:objc_getClass(className)
                                               mode:PESwizzleModeAlways key:NULL error:&failure
                                         usingBlock:(id)^int(PESwizzleInfo *info, id self, int a, int b) {
            return ((int (*)(id, SEL, int, int))[info originalImplementation])(self, [info selector], a, b) + offset;
        }];
        return keep(token, failure, error);
    PFTK_END
}

int pf_swizzle_string(const char *className, const char *suffix, char **error)
{
    PFTK_BEGIN
        const char *text = PFTkIntern(suffix);
        NSError *failure = nil;
        id token = [PESwizzle swizzleInstanceMethod:@selector(string) inClass:objc_getClass(className)
                                               mode:PESwizzleModeAlways key:NULL error:&failure
                                         usingBlock:(id)^NSString *(PESwizzleInfo *info, id self) {
            NSString *result = ((NSString *(*)(id, SEL))[info originalImplementation])(self, [info selector]);
            return [result stringByAppendingFormat:@"%s", text];
        }];
        return keep(token, failure, error);
    PFTK_END
}

int pf_swizzle_sum_doubled(const char *className, char **error)
{
    PFTK_BEGIN
        NSError *failure = nil;
        id token = [PESwizzle swizzleClassMethod:@selector(sumFloat:withDouble:) inClass:objc_getClass(className)
                                           error:&failure
                                      usingBlock:(id)^NSNumber *(PESwizzleInfo *info, id self, float f, double d) {
            NSNumber *result = ((NSNumber *(*)(id, SEL, float, double))[info originalImplementation])(self, [info selector], f, d);
            return [NSNumber numberWithDouble:[result doubleValue] * 2.0];
        }];
        return keep(token, failure, error);
    PFTK_END
}

char *pf_swizzle_refused(const char *className, int kind)
{
    PFTK_BEGIN
        Class cls = objc_getClass(className);
        NSObject *notABlock = [[NSObject new] autorelease];
        const char *selector = "methodForAlwaysSwizzling";
        id block = nil;
        switch (kind) {
            case 0: selector = "methodReturningBOOL"; block = (id)^(PESwizzleInfo *info, id self) {}; break;
            case 1: selector = "methodWithArgument:"; block = (id)^(PESwizzleInfo *info, id self) {}; break;
            case 2: selector = "methodWithArgument:"; block = (id)^(PESwizzleInfo *info, id self, int wrong) {}; break;
            case 3: block = notABlock; break;
            case 4: block = nil; break;
            case 5: selector = "nonexistent"; block = (id)^(PESwizzleInfo *info, id self) {}; break;
            default: block = (id)^(id self) {}; break;
        }
        NSError *failure = nil;
        id token = nil;
        @try {
            token = [PESwizzle swizzleInstanceMethod:sel_registerName(selector) inClass:cls
                                                mode:PESwizzleModeAlways key:NULL error:&failure usingBlock:block];
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
        if (token) {
            [token remove];
            return NULL;
        }
        if (!failure) return strdup("refused without an error");
        return PFCopyString([NSString stringWithFormat:@"%@ %ld: %@", [failure domain], (long)[failure code],
                             [failure localizedDescription]]);
    PFTK_END
}

int pf_rs_calc(void *object, int number)
{
    PFTK_BEGIN
        return [(id)object calc:number];
    PFTK_END
}

char *pf_rs_string(void *object)
{
    PFTK_BEGIN
        return PFCopyString(PFDescribe([(id)object string]));
    PFTK_END
}

char *pf_rs_sum(const char *className, float f, double d)
{
    PFTK_BEGIN
        return PFCopyString(PFDescribe([objc_getClass(className) sumFloat:f withDouble:d]));
    PFTK_END
}
