/* The class families hook, swizzle and composition tests run on (described in
   PFToolkitFixture.h), and the native calls on them. Each test takes a family of its own:
   classes can't be unregistered, and a slot keeps the route it was created with. */
#import "PFToolkitSupport.h"
#import "PFToolkitFixture.h"

typedef struct PFTkRect { double x, y, w, h; } PFTkRect;

/* The methods every family's base class answers; declared once so call sites type-check. */
@interface NSObject (PFTkFamilyBase)
- (NSString *)step;
- (int)add:(int)a to:(int)b;
- (BOOL)isEven:(int)n;
- (signed char)negate:(signed char)c;
- (void)fail;
- (void)ping;
- (NSString *)describe:(id)object number:(int)number ratio:(double)ratio flag:(BOOL)flag;
- (double)ratio;
- (long long)big;
- (PFTkRect)rect;
- (void)runBlock:(void (^)(void))block;
- (NSString *)string;
- (void)setString:(NSString *)string;
+ (NSString *)kind;
@end

#define PF_TK_FAMILY(F) \
@interface F##Base : NSObject { NSString *_string; } @end \
@implementation F##Base \
- (NSString *)step { PFTkLog(@"Base"); return @"base"; } \
- (int)add:(int)a to:(int)b { PFTkLog(@"add"); return a + b; } \
- (BOOL)isEven:(int)n { PFTkLog(@"isEven"); return n % 2 == 0; } \
- (signed char)negate:(signed char)c { PFTkLog(@"negate"); return (signed char)-c; } \
- (void)fail { PFTkLog(@"fail"); [NSException raise:@"PFTkFailure" format:@"failed on purpose"]; } \
- (void)ping { PFTkLog(@"ping"); } \
- (NSString *)describe:(id)object number:(int)number ratio:(double)ratio flag:(BOOL)flag { \
    PFTkLog(@"describe"); \
    return PFDescribe([NSArray arrayWithObjects:object ? object : (id)[NSNull null], \
        [NSNumber numberWithInt:number], [NSNumber numberWithDouble:ratio], [NSNumber numberWithBool:flag], nil]); \
} \
- (double)ratio { return 1.5; } \
- (long long)big { return 99; } \
- (PFTkRect)rect { PFTkRect r = { 100, 100, 100, 100 }; return r; } \
- (void)runBlock:(void (^)(void))block { PFTkLog(@"runBlock"); block(); } \
- (NSString *)string { return _string; } \
- (void)setString:(NSString *)string { PFTkLog(@"setString"); id old = _string; _string = [string copy]; [old release]; } \
+ (NSString *)kind { PFTkLog(@"+Base"); return @"base"; } \
- (void)dealloc { PFTkLogDealloc(self); [_string release]; [super dealloc]; } \
@end \
@interface F##Mid : F##Base @end \
@implementation F##Mid \
- (NSString *)step { PFTkLog(@"Mid"); return [[super step] stringByAppendingString:@">mid"]; } \
+ (NSString *)kind { PFTkLog(@"+Mid"); return [[super kind] stringByAppendingString:@">mid"]; } \
@end \
@interface F##Leaf : F##Mid @end \
@implementation F##Leaf @end \
@interface F##Deep : F##Leaf @end \
@implementation F##Deep \
- (NSString *)step { PFTkLog(@"Deep"); return [[super step] stringByAppendingString:@">deep"]; } \
@end \
@interface F##Sib : F##Base @end \
@implementation F##Sib @end \
@interface F##Forwarder : NSObject @end \
@implementation F##Forwarder \
- (void)test { PFTkLog(@"test"); } \
- (NSMethodSignature *)methodSignatureForSelector:(SEL)sel { \
    if (strcmp(sel_getName(sel), "nonExistingSelector") == 0) return [NSMethodSignature signatureWithObjCTypes:"v@:"]; \
    return [super methodSignatureForSelector:sel]; \
} \
- (void)forwardInvocation:(NSInvocation *)invocation { \
    if (strcmp(sel_getName([invocation selector]), "nonExistingSelector") == 0) PFTkLog(@"customForward"); \
    else [super forwardInvocation:invocation]; \
} \
@end

PF_TK_FAMILY(PFTk1) PF_TK_FAMILY(PFTk2) PF_TK_FAMILY(PFTk3) PF_TK_FAMILY(PFTk4)
PF_TK_FAMILY(PFTk5) PF_TK_FAMILY(PFTk6) PF_TK_FAMILY(PFTk7) PF_TK_FAMILY(PFTk8)
PF_TK_FAMILY(PFTk9) PF_TK_FAMILY(PFTk10) PF_TK_FAMILY(PFTk11) PF_TK_FAMILY(PFTk12)
PF_TK_FAMILY(PFTk13) PF_TK_FAMILY(PFTk14) PF_TK_FAMILY(PFTk15) PF_TK_FAMILY(PFTk16)
PF_TK_FAMILY(PFTk17) PF_TK_FAMILY(PFTk18) PF_TK_FAMILY(PFTk19) PF_TK_FAMILY(PFTk20)
PF_TK_FAMILY(PFTk21) PF_TK_FAMILY(PFTk22) PF_TK_FAMILY(PFTk23) PF_TK_FAMILY(PFTk24)
PF_TK_FAMILY(PFTk25) PF_TK_FAMILY(PFTk26) PF_TK_FAMILY(PFTk27) PF_TK_FAMILY(PFTk28)
PF_TK_FAMILY(PFTk29) PF_TK_FAMILY(PFTk30) PF_TK_FAMILY(PFTk31) PF_TK_FAMILY(PFTk32)
PF_TK_FAMILY(PFTk33) PF_TK_FAMILY(PFTk34) PF_TK_FAMILY(PFTk35) PF_TK_FAMILY(PFTk36)
PF_TK_FAMILY(PFTk37) PF_TK_FAMILY(PFTk38) PF_TK_FAMILY(PFTk39) PF_TK_FAMILY(PFTk40)
PF_TK_FAMILY(PFTk41) PF_TK_FAMILY(PFTk42) PF_TK_FAMILY(PFTk43) PF_TK_FAMILY(PFTk44)
PF_TK_FAMILY(PFTk45) PF_TK_FAMILY(PFTk46) PF_TK_FAMILY(PFTk47) PF_TK_FAMILY(PFTk48)
PF_TK_FAMILY(PFTk49) PF_TK_FAMILY(PFTk50) PF_TK_FAMILY(PFTk51) PF_TK_FAMILY(PFTk52)
PF_TK_FAMILY(PFTk53) PF_TK_FAMILY(PFTk54) PF_TK_FAMILY(PFTk55) PF_TK_FAMILY(PFTk56)
PF_TK_FAMILY(PFTk57) PF_TK_FAMILY(PFTk58) PF_TK_FAMILY(PFTk59) PF_TK_FAMILY(PFTk60)
PF_TK_FAMILY(PFTk61) PF_TK_FAMILY(PFTk62) PF_TK_FAMILY(PFTk63) PF_TK_FAMILY(PFTk64)
PF_TK_FAMILY(PFTk65) PF_TK_FAMILY(PFTk66) PF_TK_FAMILY(PFTk67) PF_TK_FAMILY(PFTk68)
PF_TK_FAMILY(PFTk69) PF_TK_FAMILY(PFTk70) PF_TK_FAMILY(PFTk71) PF_TK_FAMILY(PFTk72)
PF_TK_FAMILY(PFTk73) PF_TK_FAMILY(PFTk74) PF_TK_FAMILY(PFTk75) PF_TK_FAMILY(PFTk76)
PF_TK_FAMILY(PFTk77) PF_TK_FAMILY(PFTk78) PF_TK_FAMILY(PFTk79) PF_TK_FAMILY(PFTk80)
PF_TK_FAMILY(PFTk81) PF_TK_FAMILY(PFTk82) PF_TK_FAMILY(PFTk83) PF_TK_FAMILY(PFTk84)
PF_TK_FAMILY(PFTk85) PF_TK_FAMILY(PFTk86) PF_TK_FAMILY(PFTk87) PF_TK_FAMILY(PFTk88)
PF_TK_FAMILY(PFTk89) PF_TK_FAMILY(PFTk90) PF_TK_FAMILY(PFTk91) PF_TK_FAMILY(PFTk92)
PF_TK_FAMILY(PFTk93) PF_TK_FAMILY(PFTk94) PF_TK_FAMILY(PFTk95) PF_TK_FAMILY(PFTk96)
PF_TK_FAMILY(PFTk97) PF_TK_FAMILY(PFTk98) PF_TK_FAMILY(PFTk99) PF_TK_FAMILY(PFTk100)
PF_TK_FAMILY(PFTk101) PF_TK_FAMILY(PFTk102) PF_TK_FAMILY(PFTk103) PF_TK_FAMILY(PFTk104)
PF_TK_FAMILY(PFTk105) PF_TK_FAMILY(PFTk106) PF_TK_FAMILY(PFTk107) PF_TK_FAMILY(PFTk108)
PF_TK_FAMILY(PFTk109) PF_TK_FAMILY(PFTk110) PF_TK_FAMILY(PFTk111) PF_TK_FAMILY(PFTk112)
PF_TK_FAMILY(PFTk113) PF_TK_FAMILY(PFTk114) PF_TK_FAMILY(PFTk115) PF_TK_FAMILY(PFTk116)
PF_TK_FAMILY(PFTk117) PF_TK_FAMILY(PFTk118) PF_TK_FAMILY(PFTk119) PF_TK_FAMILY(PFTk120)
PF_TK_FAMILY(PFTk121) PF_TK_FAMILY(PFTk122) PF_TK_FAMILY(PFTk123) PF_TK_FAMILY(PFTk124)
PF_TK_FAMILY(PFTk125) PF_TK_FAMILY(PFTk126) PF_TK_FAMILY(PFTk127) PF_TK_FAMILY(PFTk128)
PF_TK_FAMILY(PFTk129) PF_TK_FAMILY(PFTk130) PF_TK_FAMILY(PFTk131) PF_TK_FAMILY(PFTk132)
PF_TK_FAMILY(PFTk133) PF_TK_FAMILY(PFTk134) PF_TK_FAMILY(PFTk135) PF_TK_FAMILY(PFTk136)
PF_TK_FAMILY(PFTk137) PF_TK_FAMILY(PFTk138) PF_TK_FAMILY(PFTk139) PF_TK_FAMILY(PFTk140)
PF_TK_FAMILY(PFTk141) PF_TK_FAMILY(PFTk142) PF_TK_FAMILY(PFTk143) PF_TK_FAMILY(PFTk144)
PF_TK_FAMILY(PFTk145) PF_TK_FAMILY(PFTk146) PF_TK_FAMILY(PFTk147) PF_TK_FAMILY(PFTk148)
PF_TK_FAMILY(PFTk149) PF_TK_FAMILY(PFTk150) PF_TK_FAMILY(PFTk151) PF_TK_FAMILY(PFTk152)
PF_TK_FAMILY(PFTk153) PF_TK_FAMILY(PFTk154) PF_TK_FAMILY(PFTk155) PF_TK_FAMILY(PFTk156)
PF_TK_FAMILY(PFTk157) PF_TK_FAMILY(PFTk158) PF_TK_FAMILY(PFTk159) PF_TK_FAMILY(PFTk160)

#pragma mark - Native calls

int pf_tk_add(void *object, int a, int b)
{
    PFTK_BEGIN
        @try {
            return [(id)object add:a to:b];
        } @catch (NSException *e) {
            PFTkLog([[NSString stringWithFormat:@"!%@:%@", [e name], [e reason]]
                     stringByReplacingOccurrencesOfString:@" " withString:@"_"]);
            return INT32_MIN;
        }
    PFTK_END
}

char *pf_tk_describe(void *object, void *argument, int number, double ratio, int flag)
{
    PFTK_BEGIN
        @try {
            return PFCopyString([(id)object describe:(id)argument number:number ratio:ratio flag:flag ? YES : NO]);
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PFTK_END
}

int pf_tk_is_even(void *object, int n)
{
    PFTK_BEGIN
        /* Read through an int the width the caller of a BOOL method reads: the low byte. */
        BOOL result = [(id)object isEven:n];
        return result ? 1 : 0;
    PFTK_END
}

int pf_tk_negate(void *object, int c)
{
    PFTK_BEGIN
        return [(id)object negate:(signed char)c];
    PFTK_END
}

double pf_tk_ratio(void *object)
{
    PFTK_BEGIN
        return [(id)object ratio];
    PFTK_END
}

long long pf_tk_big(void *object)
{
    PFTK_BEGIN
        return [(id)object big];
    PFTK_END
}

char *pf_tk_rect(void *object)
{
    PFTK_BEGIN
        PFTkRect r = [(id)object rect];
        return PFCopyString([NSString stringWithFormat:@"%g %g %g %g", r.x, r.y, r.w, r.h]);
    PFTK_END
}

void pf_tk_ping(void *object)
{
    PFTK_BEGIN
        @try {
            [(id)object ping];
        } @catch (NSException *e) {
            PFTkLogFormat(@"!%@", [e reason]);
        }
    PFTK_END
}

char *pf_tk_run_block(void *object)
{
    PFTK_BEGIN
        @try {
            [(id)object runBlock:^{ PFTkLog(@"block"); }];
            return NULL;
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PFTK_END
}

char *pf_tk_set_string(void *object, const char *value)
{
    PFTK_BEGIN
        @try {
            [(id)object setString:value ? [NSString stringWithUTF8String:value] : nil];
            return NULL;
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PFTK_END
}

char *pf_tk_send_void(void *object, const char *selector)
{
    PFTK_BEGIN
        @try {
            SEL sel = sel_registerName(selector);
            ((void (*)(id, SEL))PF_LOOKUP((id)object, sel))((id)object, sel);
            return NULL;
        } @catch (NSException *e) {
            return PFCopyExceptionString(e);
        }
    PFTK_END
}

char *pf_tk_class_report(void *object)
{
    PFTK_BEGIN
        return PFCopyString([NSString stringWithFormat:@"class=%s isa=%s",
            class_getName([(id)object class]), class_getName(object_getClass((id)object))]);
    PFTK_END
}

static id naiveStep(id self, SEL _cmd)
{
    PFTkLog(@"naive");
    SEL next = sel_registerName("naive_step");
    return ((id (*)(id, SEL))PF_LOOKUP(self, next))(self, next);
}

void pf_tk_naive_exchange_step(const char *className)
{
    PFTK_BEGIN
        Class cls = objc_getClass(className);
        SEL naive = sel_registerName("naive_step");
        class_addMethod(cls, naive, (IMP)naiveStep, "@@:");
        method_exchangeImplementations(class_getInstanceMethod(cls, @selector(step)), class_getInstanceMethod(cls, naive));
    PFTK_END
}
