#import "JPStandIns.h"

#ifndef JP_HAS_UIKIT

@implementation UIView
- (instancetype)initWithFrame:(CGRect)frame
{
    if ((self = [super init])) _frame = frame;
    return self;
}
- (CGRect)frame { return _frame; }
- (void)setFrame:(CGRect)frame { _frame = frame; }
- (CGRect)bounds { return CGRectMake(0, 0, _frame.size.width, _frame.size.height); }
@end

@implementation UIViewController
@end
#endif
