/* A product's page, opened from the catalog or a deep link. */
#import <Foundation/Foundation.h>

@interface SKProductScreen : NSObject
/* Shows the product and returns YES, or returns NO (showing nothing) for an unknown or nil SKU. */
+ (BOOL)openSKU:(NSString *)sku;
@end
