#import "SKCartScreen.h"
#import "SKCart.h"
#import "SKDisplay.h"
#import "SKLayout.h"
#import "SKMoney.h"

@implementation SKCartScreen
+ (void)showCart:(SKCart *)cart
{
    NSString *label = [NSString stringWithFormat:@"Cart: %ld items", (long)[cart itemCount]];
    [SKDisplay show:SKRow(label, SKFormatCents([cart totalCents]))];
}
@end
