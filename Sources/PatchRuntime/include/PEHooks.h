#ifndef PE_HOOKS_H
#define PE_HOOKS_H
/* Before / instead / after hooks on any (class, selector) or on one object, run by the dispatcher
   around the JS patch (if any) and the original. C interface; Aspects' Objective-C names are in
   PEAspects.h. */
#include <stdint.h>
#include <stdbool.h>

typedef enum PEHookPosition {
    PEHookPositionAfter = 0,
    PEHookPositionInstead = 1,
    PEHookPositionBefore = 2,
} PEHookPosition;

enum { PEHookOptionAutomaticRemoval = 1 << 3 };

/* Aspects' error codes, for the refused cases. */
typedef enum PEHookError {
    PEHookErrorSelectorBlacklisted = 0,
    PEHookErrorDoesNotRespondToSelector = 1,
    PEHookErrorSelectorDeallocPosition = 2,
    PEHookErrorSelectorAlreadyHookedInClassHierarchy = 3,   /* never returned: several levels are fine here */
    PEHookErrorFailedToAllocateClassPair = 4,               /* never returned: no dynamic subclasses */
    PEHookErrorMissingBlockSignature = 5,
    PEHookErrorIncompatibleBlockSignature = 6,
    PEHookErrorRemoveObjectAlreadyDeallocated = 100,
} PEHookError;

/* Hooks `selector` of every instance of `cls` (a metaclass hooks class methods) when `object` is
   NULL, or only of `object` (then `cls` may be NULL). `block`'s first parameter is the info object
   (id<AspectInfo>), then the method's arguments (any prefix of them). Returns a hook identifier,
   or 0 with *errorCode and *error (malloc'd message). */
uint64_t PEHookAdd(void *cls, void *object, const char *selector, int options, void *block,
                   int *errorCode, char **error);
/* Removes a hook; true the first time only (also false after automatic removal). */
bool PEHookRemove(uint64_t identifier);
/* The signature a hook block for (cls, selector) should have: "v@?@<args>" (for Instead hooks the
   method's return type instead of v). NULL if the class doesn't respond. */
const char *PEHookBlockEncoding(void *cls, const char *selector, bool instead);
/* How many times a -dealloc or an object's state clearing looked through the hooks for its object
   (diagnostics: an object that never had an instance hook should rarely cost a look). */
unsigned long PEHooksDeallocScanCount(void);

#endif
