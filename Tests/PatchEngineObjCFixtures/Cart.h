#import <Foundation/Foundation.h>

/* The class README's "A patch" script patches: -total (100 before any patch), a coupon property
   the script adds, and a class method the script overrides calling super. */
@interface CartBase : NSObject
+ (id)shared;
@end
@interface Cart : CartBase
- (double)total;
@end
