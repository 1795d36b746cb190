#import "SKCart.h"
#import "SKCartLine.h"
#import "SKCatalog.h"
#import "SKProduct.h"

@implementation SKCart
+ (instancetype)sampleCart
{
    SKCart *cart = [[self new] autorelease];
    [cart addProduct:[SKCatalog productWithSKU:@"MUG-01"] quantity:2];
    [cart addProduct:[SKCatalog productWithSKU:@"TEE-02"] quantity:1];
    [cart applyCoupon:@"SPRING10" percent:10];
    return cart;
}

- (instancetype)init
{
    if ((self = [super init])) _lines = [NSMutableArray new];
    return self;
}

- (void)dealloc
{
    [_lines release];
    [_coupon release];
    [super dealloc];
}

- (void)addProduct:(SKProduct *)product quantity:(NSInteger)quantity
{
    if (product == nil || quantity <= 0) return;
    [_lines addObject:[SKCartLine lineWithProduct:product quantity:quantity]];
}

- (void)applyCoupon:(NSString *)code percent:(NSInteger)percent
{
    [_coupon autorelease];
    _coupon = [code copy];
    _couponPercent = percent;
}

- (NSArray *)lines { return _lines; }
- (NSString *)coupon { return _coupon; }
- (NSInteger)couponPercent { return _couponPercent; }

- (NSInteger)itemCount
{
    NSInteger count = 0;
    for (SKCartLine *line in _lines) count += [line quantity];
    return count;
}

- (NSInteger)subtotalCents
{
    NSInteger sum = 0;
    for (SKCartLine *line in _lines) sum += [line amountCents];
    return sum;
}

- (NSInteger)discountCents { return [self subtotalCents] * _couponPercent / 100; }

- (NSInteger)discountedSubtotalCents { return [self subtotalCents] - [self discountCents]; }

- (NSInteger)taxCents { return ([self discountedSubtotalCents] * 8 + 50) / 100; }

/* BUG (fixed by Samples/patches/total.js): the discount is already off the discounted
   subtotal, and is taken off a second time here. */
- (NSInteger)totalCents
{
    return [self discountedSubtotalCents] - [self discountCents] + [self taxCents];
}
@end
