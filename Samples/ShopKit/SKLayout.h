/* Screen rows: a label on the left, a value right-aligned, in a fixed width that fits half
   of an 80-column terminal (the demo shows two runs side by side). */
#import <Foundation/Foundation.h>

enum { SKRowWidth = 34 };

/* "label      value", padded to SKRowWidth (longer texts are not cut). */
NSString *SKRow(NSString *label, NSString *value);
