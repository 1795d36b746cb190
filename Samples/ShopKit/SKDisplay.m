#import "SKDisplay.h"

static NSMutableString *SKDisplayLines(void)
{
    static NSMutableString *lines = nil;
    if (lines == nil) lines = [NSMutableString new];
    return lines;
}

@implementation SKDisplay
+ (void)show:(NSString *)line
{
    // A nil line (a screen bug) shows as an empty line rather than raising here.
    [SKDisplayLines() appendFormat:@"%@\n", line ? line : @""];
}

+ (void)showFormat:(NSString *)format, ...
{
    va_list args;
    va_start(args, format);
    NSString *line = [[NSString alloc] initWithFormat:format arguments:args];
    va_end(args);
    [self show:line];
    [line release];
}

+ (NSString *)take
{
    NSString *text = [[SKDisplayLines() copy] autorelease];
    [SKDisplayLines() setString:@""];
    return text;
}
@end
