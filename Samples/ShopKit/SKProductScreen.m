#import "SKProductScreen.h"
#import "SKCatalog.h"
#import "SKDisplay.h"
#import "SKLayout.h"
#import "SKProduct.h"

@implementation SKProductScreen
+ (BOOL)openSKU:(NSString *)sku
{
    SKProduct *product = [SKCatalog productWithSKU:sku];
    if (product == nil) return NO;
    [SKDisplay show:SKRow([product displayName], [product formattedPrice])];
    [SKDisplay show:@"[Add to cart]"];
    return YES;
}
@end
