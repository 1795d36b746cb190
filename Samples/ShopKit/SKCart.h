/* A shopping cart: lines, an optional percentage coupon, tax, and the total to charge. */
#import <Foundation/Foundation.h>
@class SKProduct;

@interface SKCart : NSObject
{
    NSMutableArray *_lines;
    NSString *_coupon;
    NSInteger _couponPercent;
}
/* The cart the sample screens show: 2 x MUG-01, 1 x TEE-02, coupon SPRING10. */
+ (instancetype)sampleCart;
- (void)addProduct:(SKProduct *)product quantity:(NSInteger)quantity;
- (void)applyCoupon:(NSString *)code percent:(NSInteger)percent;
- (NSArray *)lines;
- (NSString *)coupon;
- (NSInteger)couponPercent;
- (NSInteger)itemCount;
- (NSInteger)subtotalCents;
- (NSInteger)discountCents;
/* The subtotal with the coupon's discount taken off. */
- (NSInteger)discountedSubtotalCents;
/* Sales tax (8%) on the discounted subtotal, rounded to the cent. */
- (NSInteger)taxCents;
/* What the customer is charged. */
- (NSInteger)totalCents;
@end
