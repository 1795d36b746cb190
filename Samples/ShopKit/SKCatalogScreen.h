/* The catalog: one row per product with its title and price. */
#import <Foundation/Foundation.h>

@interface SKCatalogScreen : NSObject
/* The table rows (title, price, sku), built before anything is drawn, as a table view's data source would. */
+ (NSArray *)rows;
+ (void)show;
@end
