/* The products the shop sells, as last synced from the product feed. */
#import <Foundation/Foundation.h>
@class SKProduct;

@interface SKCatalog : NSObject
+ (NSArray *)products;
/* nil for an unknown or nil SKU. */
+ (SKProduct *)productWithSKU:(NSString *)sku;
@end
