/* The hooks of the hooked-method rows: an empty Before and an empty After block on -empty,
   installed through the Aspects API exactly as an app would. While a verification pass counts,
   the blocks record their runs; while timing, their whole body is one load of a NULL pointer. */
#import "PBSubject.h"
#import "PEAspects.h"
#include <objc/runtime.h>
#include <string.h>

/* The counters of the verification pass in progress, or NULL (always NULL while timing). */
static PBHookCounts *pbCounting;
static PBHookCounts pbCounts;

void pb_hook_counting_begin(void *expectedInstance)
{
    memset(&pbCounts, 0, sizeof pbCounts);
    pbCounts.expectedInstance = expectedInstance;
    pbCounting = &pbCounts;
}

PBHookCounts pb_hook_counting_end(void)
{
    pbCounting = NULL;
    return pbCounts;
}

static char *copyErrorText(NSError *error, const char *what)
{
    NSString *text = error
        ? [NSString stringWithFormat:@"%s: %@ %ld: %@", what, [error domain], (long)[error code], [error localizedDescription]]
        : [NSString stringWithFormat:@"%s: no token and no error", what];
    return strdup([text UTF8String]);
}

bool pb_hook_empty(const char *className, void *object, char **error)
{
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    bool ok = false;
    @try {
        id target = object ? (id)object : (id)objc_getClass(className);
        if (!target) {
            if (error) *error = strdup("no class or object to hook");
        } else {
            NSError *err = nil;
            /* Stack blocks go straight in: the hook runtime copies them (no ARC here). */
            id<AspectToken> before = [target aspect_hookSelector:@selector(empty) withOptions:AspectPositionBefore
                                                      usingBlock:^(id<AspectInfo> info) {
                PBHookCounts *c = pbCounting;
                if (c) {
                    if (c->before != c->after) c->outOfOrder++;
                    if ([info instance] != (id)c->expectedInstance) c->wrongInstance++;
                    c->before++;
                }
            } error:&err];
            if (!before) {
                if (error) *error = copyErrorText(err, "Before hook refused");
            } else {
                id<AspectToken> after = [target aspect_hookSelector:@selector(empty) withOptions:AspectPositionAfter
                                                         usingBlock:^(id<AspectInfo> info) {
                    PBHookCounts *c = pbCounting;
                    if (c) {
                        if (c->after + 1 != c->before) c->outOfOrder++;
                        if ([info instance] != (id)c->expectedInstance) c->wrongInstance++;
                        c->after++;
                    }
                } error:&err];
                if (!after) {
                    [before remove];
                    if (error) *error = copyErrorText(err, "After hook refused");
                } else {
                    ok = true;
                }
            }
        }
    } @catch (NSException *e) {
        if (error) *error = strdup([[NSString stringWithFormat:@"%@: %@", [e name], [e reason]] UTF8String]);
    }
    [pool release];
    return ok;
}
