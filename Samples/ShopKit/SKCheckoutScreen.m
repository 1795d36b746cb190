#import "SKCheckoutScreen.h"
#import "SKCart.h"
#import "SKCartLine.h"
#import "SKDisplay.h"
#import "SKLayout.h"
#import "SKMoney.h"
#import "SKProduct.h"

/* The gift-wrap service went live after this release; the screen already knows how to offer
   it, but only a cart that can price it has -giftWrapFeeCents (Samples/patches/gift-wrap.js adds it).
   Once added, the method stays visible to respondsToSelector: even after the patch is reverted
   (neither runtime removes methods); it then returns nil, so the screen checks the result too. */
@interface NSObject (SKGiftWrap)
- (id)giftWrapFeeCents;
@end

@implementation SKCheckoutScreen
+ (void)showCart:(SKCart *)cart
{
    for (SKCartLine *line in [cart lines]) {
        NSString *label = [NSString stringWithFormat:@"%ld x %@", (long)[line quantity], [[line product] displayName]];
        [SKDisplay show:SKRow(label, SKFormatCents([line amountCents]))];
    }
    [SKDisplay show:SKRow(@"Subtotal", SKFormatCents([cart subtotalCents]))];
    if ([cart coupon] != nil) {
        NSString *label = [NSString stringWithFormat:@"Coupon %@ (%ld%%)", [cart coupon], (long)[cart couponPercent]];
        [SKDisplay show:SKRow(label, SKFormatCents(-[cart discountCents]))];
    }
    [SKDisplay show:SKRow(@"Tax 8%", SKFormatCents([cart taxCents]))];
    [SKDisplay show:SKRow(@"Total", SKFormatCents([cart totalCents]))];
    if ([cart respondsToSelector:@selector(giftWrapFeeCents)]) {
        id fee = [cart giftWrapFeeCents];
        // An id-typed method: anything but a number means "no offer".
        if ([fee isKindOfClass:[NSNumber class]]) {
            NSString *label = [NSString stringWithFormat:@"Gift wrap? (%ld items)", (long)[cart itemCount]];
            [SKDisplay show:SKRow(label, [@"+" stringByAppendingString:SKFormatCents([fee integerValue])])];
        }
    }
}
@end
