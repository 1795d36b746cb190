#import "SKMoney.h"

NSString *SKFormatCents(NSInteger cents)
{
    NSInteger magnitude = cents < 0 ? -cents : cents;
    return [NSString stringWithFormat:@"%@$%ld.%02ld", cents < 0 ? @"-" : @"",
                                      (long)(magnitude / 100), (long)(magnitude % 100)];
}
