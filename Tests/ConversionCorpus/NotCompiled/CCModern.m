/* Converted by the tests but not compiled here: GCC's Objective-C runtime has no object
   subscripting or weak references, and GNUstep ships no Grand Central Dispatch headers. The
   dispatch declarations are Apple's, written out. */
#import <Foundation/Foundation.h>
#include <Block.h>

typedef struct dispatch_queue_s *dispatch_queue_t;
typedef unsigned long long dispatch_time_t;
extern struct dispatch_queue_s _dispatch_main_q;
dispatch_queue_t dispatch_get_global_queue(long identifier, unsigned long flags);
dispatch_time_t dispatch_time(dispatch_time_t when, long long delta);
void dispatch_async(dispatch_queue_t queue, void (^block)(void));
void dispatch_sync(dispatch_queue_t queue, void (^block)(void));
void dispatch_after(dispatch_time_t when, dispatch_queue_t queue, void (^block)(void));
#define dispatch_get_main_queue() (&_dispatch_main_q)
#define DISPATCH_TIME_NOW (0ull)
#define NSEC_PER_SEC 1000000000ull

@interface CCModern : NSObject
@property (nonatomic, copy) NSString *status;
- (void)reload;
@end

@interface CCModern (Added)
@end

typedef NSInteger (^CCTransform)(NSInteger value);

@implementation CCModern
@synthesize status = _status;

- (void)reload
{
    __weak CCModern *weakSelf = self;
    dispatch_async(dispatch_get_global_queue(0, 0), ^{
        NSString *loaded = [NSString stringWithFormat:@"%d items", 3];
        dispatch_async(dispatch_get_main_queue(), ^{
            __strong CCModern *strongSelf = weakSelf;
            strongSelf.status = loaded;
        });
    });
    dispatch_after(dispatch_time(DISPATCH_TIME_NOW, (long long)(1.5 * NSEC_PER_SEC)), dispatch_get_main_queue(), ^{
        [self setStatus:@"late"];
    });
}

- (NSString *)subscripts
{
    NSMutableArray *a = [NSMutableArray arrayWithObjects:@"p", @"q", nil];
    NSMutableDictionary *d = [NSMutableDictionary dictionary];
    d[@"key"] = a[1];
    a[0] = @"z";
    return [NSString stringWithFormat:@"%@%@", a[0], d[@"key"]];
}

- (BOOL)check:(NSError **)error
{
    NSLog(@"%s checking %@", __PRETTY_FUNCTION__, self.status);
    if (error) *error = [NSError errorWithDomain:@"corpus" code:2 userInfo:nil];
    return NO;
}

- (NSInteger)scaled:(NSInteger)value by:(CGFloat)factor flag:(BOOL)flag
{
    @synchronized (self) {
        return flag ? (NSInteger)(value * factor) : value;
    }
}
- (NSInteger)transformed:(NSInteger)value
{
    CCTransform twice = Block_copy(^NSInteger(NSInteger v) { return v * 2; });
    NSInteger result = twice(value);
    Block_release(twice);
    return result;
}
@end
