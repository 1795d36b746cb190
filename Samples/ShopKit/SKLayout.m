#import "SKLayout.h"

NSString *SKRow(NSString *label, NSString *value)
{
    NSInteger gap = SKRowWidth - (NSInteger)[label length] - (NSInteger)[value length];
    if (gap < 1) gap = 1;
    NSString *spaces = [@"" stringByPaddingToLength:(NSUInteger)gap withString:@" " startingAtIndex:0];
    return [NSString stringWithFormat:@"%@%@%@", label, spaces, value];
}
