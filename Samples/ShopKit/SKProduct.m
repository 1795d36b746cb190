#import "SKProduct.h"
#import "SKMoney.h"

@implementation SKProduct
+ (instancetype)productWithSKU:(NSString *)sku name:(NSString *)name priceCents:(NSInteger)priceCents
{
    SKProduct *product = [[self new] autorelease];
    product->_sku = [sku copy];
    product->_name = [name copy];
    product->_priceCents = priceCents;
    return product;
}

- (void)dealloc
{
    [_sku release];
    [_name release];
    [super dealloc];
}

- (NSString *)sku { return _sku; }
- (NSString *)name { return _name; }
- (NSInteger)priceCents { return _priceCents; }

/* BUG (fixed by Samples/patches/product-name.js): trusts the feed to always carry a name.
   A product without one makes this nil, and the catalog screen crashes on it. */
- (NSString *)displayName { return _name; }

- (NSString *)formattedPrice { return SKFormatCents(_priceCents); }
@end
