/* The cart summary, opened from a deep link. */
#import <Foundation/Foundation.h>
@class SKCart;

@interface SKCartScreen : NSObject
+ (void)showCart:(SKCart *)cart;
@end
