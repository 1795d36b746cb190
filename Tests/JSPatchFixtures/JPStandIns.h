/* Stand-ins for what JSPatch's test classes take from UIKit and CoreGraphics, which this
   platform (GNUstep on Linux) does not have. Only these, each with Apple's layout and struct tag,
   so type encodings read as on Apple ({CGRect={CGPoint=dd}{CGSize=dd}}):
     CGFloat (double), CGPoint, CGSize, CGRect, CGVector, CGAffineTransform, UIEdgeInsets,
     CGRectMake / CGPointMake / CGSizeMake / UIEdgeInsetsMake, CGRectZero / CGPointZero /
     CGSizeZero / UIEdgeInsetsZero, CGPointEqualToPoint / CGSizeEqualToSize,
     UIView (frame, bounds, -initWithFrame:), UIViewController (an empty NSObject subclass).
   On Apple platforms CoreGraphics is the real one, and so is UIKit on iOS. */
#ifndef JP_STAND_INS_H
#define JP_STAND_INS_H

#import <Foundation/Foundation.h>

#if defined(__APPLE__)
/* The real CoreGraphics; UIKit where there is one (iOS), the UIKit parts stood in on macOS. */
#import <CoreGraphics/CoreGraphics.h>
#import <TargetConditionals.h>
#if TARGET_OS_IPHONE
#import <UIKit/UIKit.h>
#define JP_HAS_UIKIT 1
#endif
#else
#ifndef CGFLOAT_DEFINED
typedef double CGFloat;
#endif
typedef struct CGPoint { CGFloat x; CGFloat y; } CGPoint;
typedef struct CGSize { CGFloat width; CGFloat height; } CGSize;
typedef struct CGRect { CGPoint origin; CGSize size; } CGRect;
typedef struct CGVector { CGFloat dx; CGFloat dy; } CGVector;
typedef struct CGAffineTransform { CGFloat a, b, c, d, tx, ty; } CGAffineTransform;

static inline CGPoint CGPointMake(CGFloat x, CGFloat y) { CGPoint p = { x, y }; return p; }
static inline CGSize CGSizeMake(CGFloat w, CGFloat h) { CGSize s = { w, h }; return s; }
static inline CGRect CGRectMake(CGFloat x, CGFloat y, CGFloat w, CGFloat h) { CGRect r = { { x, y }, { w, h } }; return r; }
static inline BOOL CGPointEqualToPoint(CGPoint a, CGPoint b) { return a.x == b.x && a.y == b.y; }
static inline BOOL CGSizeEqualToSize(CGSize a, CGSize b) { return a.width == b.width && a.height == b.height; }
#define CGRectZero CGRectMake(0, 0, 0, 0)
#define CGPointZero CGPointMake(0, 0)
#define CGSizeZero CGSizeMake(0, 0)
#endif

#ifndef JP_HAS_UIKIT
typedef struct UIEdgeInsets { CGFloat top, left, bottom, right; } UIEdgeInsets;
static inline UIEdgeInsets UIEdgeInsetsMake(CGFloat t, CGFloat l, CGFloat b, CGFloat r) { UIEdgeInsets e = { t, l, b, r }; return e; }
#define UIEdgeInsetsZero UIEdgeInsetsMake(0, 0, 0, 0)

@interface UIView : NSObject
{
    CGRect _frame;
}
- (instancetype)initWithFrame:(CGRect)frame;
- (CGRect)frame;
- (void)setFrame:(CGRect)frame;
/* The frame's size at origin zero, as UIKit's bounds of an untransformed view. */
- (CGRect)bounds;
@end

@interface UIViewController : NSObject
@end
#endif

#endif
