/* Silent differences (issue 33) in code GCC's Objective-C runtime can't compile or run here:
   weak references, and messages to blocks (blocks are no objects on that runtime). */
#import <Foundation/Foundation.h>

@interface CCSilentModern : NSObject
@property (nonatomic, copy) void (^handler)(void);
@property (nonatomic, copy) NSString *status;
@end

@implementation CCSilentModern
@synthesize handler = _handler;
@synthesize status = _status;

/* (6) A __weak parameter captured by a block stays weak. */
- (void)observe:(__weak id)target
{
    self.handler = ^{
        if (target) [self setStatus:[target description]];
    };
}

/* (4) A message to a block literal: MRC's idiom for returning a block. */
- (NSInteger (^)(NSInteger))adder:(NSInteger)n
{
    return [[^NSInteger(NSInteger v) { return v + n; } copy] autorelease];
}

- (void)refusedBlockMessage
{
    NSLog(@"%@", [^{ } description]);
}
@end
