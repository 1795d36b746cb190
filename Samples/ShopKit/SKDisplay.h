/* The shop's "screen": a console app has no UIKit, so screens append the lines they show here. */
#import <Foundation/Foundation.h>

@interface SKDisplay : NSObject
/* Shows one line. */
+ (void)show:(NSString *)line;
/* Shows a formatted line. */
+ (void)showFormat:(NSString *)format, ...;
/* The lines shown since the last call, each ending in a newline; the display is emptied. */
+ (NSString *)take;
@end
