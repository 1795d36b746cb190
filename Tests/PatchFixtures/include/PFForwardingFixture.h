/* Classes with their own -forwardInvocation:. Selectors starting with "dyn" are not
   implemented; -methodSignatureForSelector: gives them the type "@@:" and
   -forwardInvocation: answers them. Call them natively with pf_send(object, "dynFoo").

   PFForwarder      -greet "hello"; dyn* → "forwarded:<selector>"; -forwardLog lists them
   PFForwardParent  -greet "parent-hello"; dyn* → "parent-original:<selector>"
     PFForwardChild -greet "child-hello"; no forwarding methods of its own */
#ifndef PF_FORWARDING_FIXTURE_H
#define PF_FORWARDING_FIXTURE_H

/* Replaces PFForwardParent's -forwardInvocation: at run time with one answering
   "parent-swizzled:<selector>" (on = 1), or puts the original back (on = 0). */
void pf_forward_swizzle_parent(int on);

#endif
