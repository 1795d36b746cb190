#import "Cart.h"

@implementation CartBase
+ (id)shared { return @"base"; }
@end
@implementation Cart
- (double)total { return 100; }
@end
