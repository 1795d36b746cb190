/* Protocols whose methods use struct, SEL and block types, for classes that scripts
   define with defineClass('Name : NSObject <PFShapeSource, PFNamed>', ...):

   @protocol PFShapeSource <NSObject>
     - (NSRect)boundsForScale:(double)scale;
     - (SEL)preferredAction;
     - (int)runWithCompletion:(void (^)(int code))done;
     - (NSRange)rangeForName:(NSString *)name;
     + (int)instanceLimit;
     @optional - (double)weightFor:(float)f;   (invisible to the GCC runtime's protocol API)
   @protocol PFNamed
     - (NSString *)displayName;

   PFShapeReference implements both natively: bounds {0, 0, 10*scale, 5*scale},
   action "redraw:", run calls done(7) and returns 1, range {1, name length},
   limit 3, weight f*2, displayName "reference".
   Each pf_shape_* function creates an instance of className and calls natively. */
#ifndef PF_PROTOCOLS_FIXTURE_H
#define PF_PROTOCOLS_FIXTURE_H
#include "PFStructsFixture.h"

PFRectC pf_shape_bounds(const char *className, double scale, int *raised);
char *pf_shape_action(const char *className);                 /* selector name, "nil" or "!..." */
/* Returns the method's result; *code = the value the completion block got, -1 if never called. */
int pf_shape_run(const char *className, int *code, int *raised);
PFRangeC pf_shape_range(const char *className, const char *name, int *raised);
int pf_shape_limit(const char *className, int *raised);        /* +instanceLimit */
double pf_shape_weight(const char *className, float f, int *raised);
char *pf_shape_display_name(const char *className);

#endif
