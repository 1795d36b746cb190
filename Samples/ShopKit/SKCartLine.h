/* One line of a cart: a product and how many of it. */
#import <Foundation/Foundation.h>
@class SKProduct;

@interface SKCartLine : NSObject
{
    SKProduct *_product;
    NSInteger _quantity;
}
+ (instancetype)lineWithProduct:(SKProduct *)product quantity:(NSInteger)quantity;
- (SKProduct *)product;
- (NSInteger)quantity;
- (NSInteger)amountCents;
@end
