/* CoreGraphics for `make apple-check` only: the geometry the package's Objective-C uses, each
   declaration copied in shape from the SDK's CGBase.h and CGGeometry.h (64-bit). */
#ifndef PE_APPLE_CHECK_COREGRAPHICS_H
#define PE_APPLE_CHECK_COREGRAPHICS_H
#include <stdbool.h>

/* CGBase.h */
typedef double CGFloat;
#define CGFLOAT_DEFINED 1

/* CGGeometry.h */
struct CGPoint { CGFloat x; CGFloat y; };
typedef struct CGPoint CGPoint;
struct CGSize { CGFloat width; CGFloat height; };
typedef struct CGSize CGSize;
struct CGVector { CGFloat dx; CGFloat dy; };
typedef struct CGVector CGVector;
struct CGRect { CGPoint origin; CGSize size; };
typedef struct CGRect CGRect;

extern const CGPoint CGPointZero;
extern const CGSize CGSizeZero;
extern const CGRect CGRectZero;

static inline CGPoint CGPointMake(CGFloat x, CGFloat y) { CGPoint p; p.x = x; p.y = y; return p; }
static inline CGSize CGSizeMake(CGFloat width, CGFloat height) { CGSize size; size.width = width; size.height = height; return size; }
static inline CGRect CGRectMake(CGFloat x, CGFloat y, CGFloat width, CGFloat height) {
    CGRect rect;
    rect.origin.x = x; rect.origin.y = y;
    rect.size.width = width; rect.size.height = height;
    return rect;
}
extern bool CGPointEqualToPoint(CGPoint point1, CGPoint point2);
extern bool CGSizeEqualToSize(CGSize size1, CGSize size2);
extern bool CGRectEqualToRect(CGRect rect1, CGRect rect2);

/* CGAffineTransform.h */
struct CGAffineTransform { CGFloat a, b, c, d; CGFloat tx, ty; };
typedef struct CGAffineTransform CGAffineTransform;
#endif
