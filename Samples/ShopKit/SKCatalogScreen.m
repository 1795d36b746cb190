#import "SKCatalogScreen.h"
#import "SKCatalog.h"
#import "SKDisplay.h"
#import "SKLayout.h"
#import "SKProduct.h"

@implementation SKCatalogScreen
+ (NSArray *)rows
{
    NSMutableArray *rows = [NSMutableArray array];
    for (SKProduct *product in [SKCatalog products]) {
        NSMutableDictionary *row = [NSMutableDictionary dictionary];
        // Raises NSInvalidArgumentException when displayName is nil (see -[SKProduct displayName]).
        [row setObject:[product displayName] forKey:@"title"];
        [row setObject:[product formattedPrice] forKey:@"price"];
        [row setObject:[product sku] forKey:@"sku"];
        [rows addObject:row];
    }
    return rows;
}

+ (void)show
{
    for (NSDictionary *row in [self rows]) {
        NSString *label = [NSString stringWithFormat:@"%-8s%@", [[row objectForKey:@"sku"] UTF8String],
                                                             [row objectForKey:@"title"]];
        [SKDisplay show:SKRow(label, [row objectForKey:@"price"])];
    }
}
@end
