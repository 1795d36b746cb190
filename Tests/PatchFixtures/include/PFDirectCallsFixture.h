/* Fixtures for calls of JS-defined methods from JS (DirectCallTests) and for the bridge's
   autorelease batches (BridgePoolTests). Driven from JS through PFDirectFixture's class methods,
   with C functions for what a native caller does. */
#ifndef PF_DIRECT_CALLS_FIXTURE_H
#define PF_DIRECT_CALLS_FIXTURE_H
#include <stdint.h>

/* PFDirectBase: -value (1), -twice: (int), -name / -setName: (KVO compliant), -label (@"base").
   PFDirectNative : PFDirectBase overrides -value natively (100) and -label (@"native").
   PFDirectPlain : PFDirectBase overrides nothing.
   PFDirectFixture (class methods, for JS):
     +observe: adds a KVO observer of "name" that counts changes (+notifications);
     +becomeNative: changes the object's class to PFDirectNative (object_setClass);
     +valueOf: sends -value natively, +labelOf: sends -label natively;
     +autoreleased: a new PFDirectTracked, autoreleased (+liveTracked counts the live ones);
     +makeAutoreleased: makes one, autoreleased, and returns +liveTracked;
     +callInOwnPool:selector: sends the selector to the object inside a pool of its own, drained
       before it returns (native code between two entries into JS). */

/* Changes counted by the observers +observe: added, since the last reset. */
int pf_direct_notifications(void);
void pf_direct_reset_notifications(void);
/* PFDirectTracked objects allocated and not yet deallocated. */
int pf_direct_live_tracked(void);
/* A swizzle of -[PFDirectBase value] adding `offset` to what is below it: a handle for
   pf_tk_remove, or 0 with *error. */
int pf_direct_swizzle_value(int offset, char **error);
/* Native [[PFDirectBase new] value] through a patched class method +make (see the tests). */
int pf_direct_native_value_of_new(const char *className);
/* Other code replacing a method (as analytics SDKs do), no engine involved: -[className value]
   set to a function returning `value` (method_setImplementation); the IMP it had is returned, for
   pf_direct_set_imp to put back. */
void *pf_direct_replace_value(const char *className, int value);
void pf_direct_set_imp(const char *className, const char *selector, void *imp);
/* Other code adding a method to a class (class_addMethod, the runtime's own), no engine involved:
   an int method without arguments returning `value`. 1 if added. */
int pf_direct_add_int_method(const char *className, const char *selector, int value);
/* method_exchangeImplementations of two instance methods of className. */
void pf_direct_exchange(const char *className, const char *first, const char *second);
#endif
