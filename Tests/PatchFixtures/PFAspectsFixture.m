/* Hook blocks for the Aspects-compatible API and the entry points that install them. */
#import "PFToolkitSupport.h"
#import "PFAspectsFixture.h"
#import "PFToolkitFixture.h"
#include "PEHooks.h"
#include <Block.h>

static long hookCounter;
long pf_hook_counter(void) { return __atomic_load_n(&hookCounter, __ATOMIC_RELAXED); }

static id keptInfo;     /* the info a PFHookKeepInfo hook kept last */

char *pf_hook_kept_info_report(void *object)
{
    PFTK_BEGIN
        id info = nil;
        @synchronized ([NSObject class]) { info = keptInfo; keptInfo = nil; }
        if (!info) return NULL;
        NSString *invocation = @"usable";
        @try {
            [[info originalInvocation] target];
        } @catch (NSException *e) {
            invocation = [e reason];
        }
        NSString *report = [NSString stringWithFormat:@"%s:%@", [info instance] == (id)object ? "same" : "other", invocation];
        [info release];
        return PFCopyString(report);
    PFTK_END
}

/* A block as compilers before clang 3 laid it out: global, no signature in the descriptor. */
struct PFUnsignedBlockDescriptor { unsigned long reserved, size; };
struct PFUnsignedBlock {
    void *isa;
    int flags, reserved;
    void (*invoke)(void *);
    struct PFUnsignedBlockDescriptor *descriptor;
};
static void unsignedBlockInvoke(void *block) { (void)block; PFTkLog(@"unsigned block"); }
static struct PFUnsignedBlockDescriptor unsignedDescriptor = { 0, sizeof(struct PFUnsignedBlock) };
static struct PFUnsignedBlock unsignedBlock = {
    _NSConcreteGlobalBlock, 1 << 28 /* BLOCK_IS_GLOBAL, no BLOCK_HAS_SIGNATURE */, 0,
    unsignedBlockInvoke, &unsignedDescriptor
};

/* A stack block must not outlive the function that made it: each is copied to the heap where
   it is made (HEAP), and released with dropBlock once the hook has taken its own copy. */
#define HEAP(...) ((id)Block_copy((const void *)(__VA_ARGS__)))

static void dropBlock(int kind, id block)
{
    if (block && kind != PFHookNotABlock && kind != PFHookNil && kind != PFHookNoSignature)
        Block_release((const void *)block);
}

/* Multiplies the int result the invocation holds by ten, through getReturnValue:/setReturnValue:. */
static int multiplyIntResultByTen(NSInvocation *invocation)
{
    int result = 0;
    [invocation getReturnValue:&result];
    result *= 10;
    [invocation setReturnValue:&result];
    return result;
}

/* The block for `kind` (a heap copy), or an object for the refused kinds. */
static id makeBlock(int kind, const char *label, id sample)
{
    switch (kind) {
        case PFHookLog:
            return HEAP(^(id<AspectInfo> info) { PFTkLog([NSString stringWithUTF8String:label]); });
        case PFHookLogArguments:
            return HEAP(^(id<AspectInfo> info) {
                PFTkLogFormat(@"%s(%@)", label, PFDescribe([info arguments]));
            });
        case PFHookLogInfo:
            return HEAP(^(id<AspectInfo> info) {
                NSInvocation *invocation = [info originalInvocation];
                PFTkLogFormat(@"%s:%s:%s:%s", label, class_getName(object_getClass([info instance])),
                              sel_getName([invocation selector]),
                              [invocation target] == [info instance] ? "same" : "other");
            });
        case PFHookInvoke:
            return HEAP(^(id<AspectInfo> info) {
                PFTkLog([NSString stringWithUTF8String:label]);
                [[info originalInvocation] invoke];
            });
        case PFHookInvokeOriginal:
            return HEAP(^(id<PEAspectInfoInvoking> info) {
                id result = [info invokeOriginal];
                PFTkLogFormat(@"%s=%@", label, PFDescribe(result));
            });
        case PFHookAddTimesTen:
            return HEAP(^(id<AspectInfo> info, int a, int b) {
                [[info originalInvocation] invoke];
                PFTkLogFormat(@"%s=%d", label, multiplyIntResultByTen([info originalInvocation]));
            });
        case PFHookAddReturnsProduct:
            return HEAP(^int(id<AspectInfo> info, int a, int b) {
                PFTkLog([NSString stringWithUTF8String:label]);
                return a * b;
            });
        case PFHookAddFirstArgument:
            return HEAP(^(id<AspectInfo> info, int a) { PFTkLogFormat(@"%s(%d)", label, a); });
        case PFHookSetLabel:
            return HEAP(^(id<AspectInfo> info) {
                /* A constant-lifetime string: the caller gets it back after this block returns. */
                static NSMutableDictionary *strings;
                NSString *value;
                @synchronized ([NSObject class]) {
                    if (!strings) strings = [NSMutableDictionary new];
                    NSString *key = [NSString stringWithUTF8String:label];
                    value = [strings objectForKey:key];
                    if (!value) { value = key; [strings setObject:key forKey:key]; }
                }
                [[info originalInvocation] setReturnValue:&value];
            });
        case PFHookCount:
            return HEAP(^(id<AspectInfo> info) { __atomic_add_fetch(&hookCounter, 1, __ATOMIC_RELAXED); });
        case PFHookCountInvoke:
            return HEAP(^(id<AspectInfo> info) {
                __atomic_add_fetch(&hookCounter, 1, __ATOMIC_RELAXED);
                [[info originalInvocation] invoke];
            });
        case PFHookCallBlockArgument:
            return HEAP(^(id<AspectInfo> info, void (^block)(void)) {
                PFTkLog([NSString stringWithUTF8String:label]);
                block();
            });
        case PFHookLogAllArguments:
            return HEAP(^(id<AspectInfo> info, id object, int number, double ratio, BOOL flag) {
                PFTkLogFormat(@"%s(%@ %d %g %d)", label, PFDescribe(object), number, ratio, (int)flag);
            });
        case PFHookRaise:
            return HEAP(^(id<AspectInfo> info) {
                [NSException raise:@"PFHookFailure" format:@"%s", label];
            });
        case PFHookSetRect:
            return HEAP(^(id<AspectInfo> info) {
                struct { double x, y, w, h; } rect = { 1, 2, 3, 4 };
                [[info originalInvocation] setReturnValue:&rect];
            });
        case PFHookDoubleFirstArgument:
            return HEAP(^(id<AspectInfo> info) {
                NSInvocation *invocation = [info originalInvocation];
                int a = 0;
                [invocation getArgument:&a atIndex:2];
                a *= 2;
                [invocation setArgument:&a atIndex:2];
                PFTkLog([NSString stringWithUTF8String:label]);
            });
        case PFHookResultTimesTen:
            return HEAP(^(id<AspectInfo> info) {
                PFTkLogFormat(@"%s=%d", label, multiplyIntResultByTen([info originalInvocation]));
            });
        case PFHookFlipBool:
            return HEAP(^(id<AspectInfo> info) {
                NSInvocation *invocation = [info originalInvocation];
                BOOL result = NO;
                [invocation getReturnValue:&result];
                result = !result;
                [invocation setReturnValue:&result];
                PFTkLog([NSString stringWithUTF8String:label]);
            });
        case PFHookSetCharMinus100:
            return HEAP(^(id<AspectInfo> info) {
                signed char result = -100;
                [[info originalInvocation] setReturnValue:&result];
                PFTkLog([NSString stringWithUTF8String:label]);
            });
        case PFHookSetCharArgument7:
            return HEAP(^(id<AspectInfo> info) {
                signed char value = 7;
                [[info originalInvocation] setArgument:&value atIndex:2];
                PFTkLog([NSString stringWithUTF8String:label]);
            });
        case PFHookKeepInfo:
            return HEAP(^(id<AspectInfo> info) {
                @synchronized ([NSObject class]) {
                    [keptInfo release];
                    keptInfo = [(id)info retain];
                }
                PFTkLog([NSString stringWithUTF8String:label]);
            });
        case PFHookNotABlock: return sample;
        case PFHookNil: return nil;
        case PFHookNoSignature: return (id)(void *)&unsignedBlock;
        case PFHookWrongArgumentType:
            return HEAP(^(id<AspectInfo> info, NSString *a) { PFTkLog(@"wrong"); });
        case PFHookTooManyArguments:
            return HEAP(^(id<AspectInfo> info, int a, int b, int c) { PFTkLog(@"wrong"); });
        case PFHookWrongReturnType:
            return HEAP(^double(id<AspectInfo> info) { return 1.0; });
        case PFHookInfoNotAnObject:
            return HEAP(^(int notInfo) { PFTkLog(@"wrong"); });
        default:
            return nil;
    }
}

static int finish(id<AspectToken> token, NSError *failure, char **error)
{
    if (token) return PFTkKeep(token);
    if (!error) return 0;
    if (!failure) *error = strdup("no token and no error");
    else if (![[failure domain] isEqualToString:AspectErrorDomain])
        *error = PFCopyString([NSString stringWithFormat:@"wrong domain %@", [failure domain]]);
    else
        *error = PFCopyString([NSString stringWithFormat:@"%ld: %@", (long)[failure code], [failure localizedDescription]]);
    return 0;
}

int pf_hook_class(const char *className, const char *selector, int options, const char *label,
                  int kind, char **error)
{
    PFTK_BEGIN
        Class cls = objc_getClass(className);
        NSError *failure = nil;
        NSObject *sample = [[NSObject new] autorelease];
        id block = makeBlock(kind, PFTkIntern(label), sample);
        id token = [cls aspect_hookSelector:sel_registerName(selector) withOptions:(AspectOptions)options
                                 usingBlock:block error:&failure];
        dropBlock(kind, block);
        return finish(token, failure, error);
    PFTK_END
}

int pf_hook_object(void *object, const char *selector, int options, const char *label,
                   int kind, char **error)
{
    PFTK_BEGIN
        NSError *failure = nil;
        NSObject *sample = [[NSObject new] autorelease];
        id block = makeBlock(kind, PFTkIntern(label), sample);
        id token = [(id)object aspect_hookSelector:sel_registerName(selector) withOptions:(AspectOptions)options
                                        usingBlock:block error:&failure];
        dropBlock(kind, block);
        return finish(token, failure, error);
    PFTK_END
}

/* The C API's token: -remove calls PEHookRemove. */
@interface PFHookIdentifierToken : NSObject <AspectToken> { uint64_t _identifier; }
@end
@implementation PFHookIdentifierToken
- (BOOL)remove { return PEHookRemove(_identifier); }
+ (id)tokenWithIdentifier:(uint64_t)identifier
{
    PFHookIdentifierToken *token = [[self new] autorelease];
    token->_identifier = identifier;
    return token;
}
@end

int pf_hook_class_method(const char *className, const char *selector, int options, const char *label,
                         int kind, int via, char **error)
{
    PFTK_BEGIN
        Class cls = objc_getClass(className);
        id block = makeBlock(kind, PFTkIntern(label), nil);
        if (via == 0) {
            NSError *failure = nil;
            id token = nil;
            @try {
                token = [(id)object_getClass(cls) aspect_hookSelector:sel_registerName(selector)
                                                          withOptions:(AspectOptions)options
                                                           usingBlock:block error:&failure];
            } @catch (id exception) {
                if (error) *error = PFCopyString([NSString stringWithFormat:@"!%@", exception]);
                dropBlock(kind, block);
                return 0;
            }
            dropBlock(kind, block);
            return finish(token, failure, error);
        }
        int code = 0;
        char *message = NULL;
        uint64_t identifier = via == 1
            ? PEHookAdd(object_getClass(cls), NULL, selector, options, block, &code, &message)
            : PEHookAdd(NULL, cls, selector, options, block, &code, &message);
        dropBlock(kind, block);
        if (!identifier) {
            if (error) *error = PFCopyString([NSString stringWithFormat:@"%d: %s", code, message ? message : "?"]);
            free(message);
            return 0;
        }
        return PFTkKeep([PFHookIdentifierToken tokenWithIdentifier:identifier]);
    PFTK_END
}
