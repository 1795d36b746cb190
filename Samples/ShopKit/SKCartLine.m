#import "SKCartLine.h"
#import "SKProduct.h"

@implementation SKCartLine
+ (instancetype)lineWithProduct:(SKProduct *)product quantity:(NSInteger)quantity
{
    SKCartLine *line = [[self new] autorelease];
    line->_product = [product retain];
    line->_quantity = quantity;
    return line;
}

- (void)dealloc
{
    [_product release];
    [super dealloc];
}

- (SKProduct *)product { return _product; }
- (NSInteger)quantity { return _quantity; }
- (NSInteger)amountCents { return [_product priceCents] * _quantity; }
@end
