/* The subject classes' shared interface (private to the fixtures). */
#import <Foundation/Foundation.h>
#import "BenchFixtures.h"

/* What the timing loops send; every subject class implements it identically. */
@protocol PBSubject
- (void)empty;
- (int)constant;
- (void)takeObject:(id)object;
- (id)object;
- (void)takeRect:(NSRect)rect;
@end

/* Written by -takeObject: so the call has an observable effect. */
extern id volatile pbObjectSink;
/* Written by -takeRect:. */
extern volatile double pbRectSink;

/* The rect every -takeRect: call of the loops passes (PB_RECT_* in BenchFixtures.h). */
static inline NSRect pbLoopRect(void) { return NSMakeRect(PB_RECT_X, PB_RECT_Y, PB_RECT_WIDTH, PB_RECT_HEIGHT); }

/* Declares and implements one subject class. Each benchmark row that changes a class (patch, slot,
   hook) gets its own class, so no row can disturb another row's floor. A new row needs one line:
   PB_SUBJECT_CLASS(PBSomethingNew) in PBSubjects.m. */
#define PB_SUBJECT_CLASS(Name) \
    @interface Name : NSObject <PBSubject> \
    @end \
    @implementation Name \
    - (void)empty {} \
    - (int)constant { return PB_NATIVE_CONSTANT; } \
    - (void)takeObject:(id)object { pbObjectSink = object; } \
    - (id)object { return self; } \
    - (void)takeRect:(NSRect)rect { pbRectSink = rect.size.width; } \
    @end
