/* Checkout: the cart's lines, coupon, tax and total, and the extras the cart offers. */
#import <Foundation/Foundation.h>
@class SKCart;

@interface SKCheckoutScreen : NSObject
+ (void)showCart:(SKCart *)cart;
@end
