/* A product of the catalog, as the product feed delivers it. */
#import <Foundation/Foundation.h>

@interface SKProduct : NSObject
{
    NSString *_sku;
    NSString *_name;
    NSInteger _priceCents;
}
+ (instancetype)productWithSKU:(NSString *)sku name:(NSString *)name priceCents:(NSInteger)priceCents;
- (NSString *)sku;
/* nil when the feed has no name for the product. */
- (NSString *)name;
- (NSInteger)priceCents;
/* The title screens show. */
- (NSString *)displayName;
- (NSString *)formattedPrice;
@end
