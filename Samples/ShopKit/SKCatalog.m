#import "SKCatalog.h"
#import "SKProduct.h"

@implementation SKCatalog
+ (NSArray *)products
{
    static NSArray *products = nil;
    if (products == nil) {
        products = [[NSArray alloc] initWithObjects:
            [SKProduct productWithSKU:@"MUG-01" name:@"Coffee mug" priceCents:1200],
            [SKProduct productWithSKU:@"TEE-02" name:@"T-shirt" priceCents:2000],
            // The feed lost this gift card's name: a real-world record with a nil field.
            [SKProduct productWithSKU:@"GIFT-50" name:nil priceCents:5000],
            [SKProduct productWithSKU:@"PEN-03" name:@"Fountain pen" priceCents:3500],
            nil];
    }
    return products;
}

+ (SKProduct *)productWithSKU:(NSString *)sku
{
    if (sku == nil) return nil;
    for (SKProduct *product in [self products]) {
        if ([[product sku] isEqualToString:sku]) return product;
    }
    return nil;
}
@end
