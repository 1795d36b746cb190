/* The subject classes, one per benchmark row that changes its class. */
#import "PBSubject.h"

id volatile pbObjectSink;
volatile double pbRectSink;

/* Never patched: the floor of every native row. */
PB_SUBJECT_CLASS(PBDirect)
/* Patched by a JS script through the default (forwarding) route. */
PB_SUBJECT_CLASS(PBPatchedForwarding)
/* Patched by a JS script through the closure route. */
PB_SUBJECT_CLASS(PBPatchedClosure)
/* Taken over by a dispatcher slot with no patch (forwarding route): the route's floor. */
PB_SUBJECT_CLASS(PBSlotForwarding)
/* Taken over by a dispatcher slot with no patch (closure route): the route's floor. */
PB_SUBJECT_CLASS(PBSlotClosure)
/* -empty hooked (empty Before + After blocks, Aspects API) on the class, closure route. */
PB_SUBJECT_CLASS(PBHookedClosure)
/* The same, forwarding route. */
PB_SUBJECT_CLASS(PBHookedForwarding)
/* -empty hooked on one instance only, closure route. */
PB_SUBJECT_CLASS(PBInstanceHookedClosure)
/* The same, forwarding route. */
PB_SUBJECT_CLASS(PBInstanceHookedForwarding)

/* -empty hooked on a subclass that implements nothing (the hook's slot has no implementation of
   its own: the superclass's is resolved per call), closure route; each base is never hooked. */
PB_SUBJECT_CLASS(PBInheritedClosureBase)
@interface PBInheritedHookedClosure : PBInheritedClosureBase
@end
@implementation PBInheritedHookedClosure
@end
/* The same, forwarding route. */
PB_SUBJECT_CLASS(PBInheritedForwardingBase)
@interface PBInheritedHookedForwarding : PBInheritedForwardingBase
@end
@implementation PBInheritedHookedForwarding
@end
