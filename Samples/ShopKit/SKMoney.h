/* Prices are whole cents, shown as dollars. */
#import <Foundation/Foundation.h>

/* "$12.00", "-$4.40". */
NSString *SKFormatCents(NSInteger cents);
