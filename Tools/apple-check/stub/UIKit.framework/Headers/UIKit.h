/* UIKit for `make apple-check` only: what the package's Objective-C uses (JSPatch's test classes),
   each declaration copied in shape from the iOS SDK header named beside it. */
#ifndef PE_APPLE_CHECK_UIKIT_H
#define PE_APPLE_CHECK_UIKIT_H
#import <Foundation/Foundation.h>
#import <CoreGraphics/CoreGraphics.h>

NS_ASSUME_NONNULL_BEGIN
/* UIGeometry.h */
typedef struct __attribute__((objc_boxable)) UIEdgeInsets {
    CGFloat top, left, bottom, right;
} UIEdgeInsets;
static inline UIEdgeInsets UIEdgeInsetsMake(CGFloat top, CGFloat left, CGFloat bottom, CGFloat right) {
    UIEdgeInsets insets = {top, left, bottom, right};
    return insets;
}
extern const UIEdgeInsets UIEdgeInsetsZero;

/* UIResponder.h, UIView.h, UIViewController.h */
@interface UIResponder : NSObject
@end
@interface UIView : UIResponder
- (instancetype)initWithFrame:(CGRect)frame;
@property (nonatomic) CGRect frame;
@property (nonatomic) CGRect bounds;
@end
@interface UIViewController : UIResponder
@end
NS_ASSUME_NONNULL_END
#endif
