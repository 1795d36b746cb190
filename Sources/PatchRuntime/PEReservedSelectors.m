/* Selectors the engine never takes over (patch, hook, swizzle). */
#import "PEInternal.h"
#include <string.h>

/* Memory management: the engine sends these itself (boxing an object retains it, a box's
   finalizer releases it, the bridge autoreleases results; the runtime sends the weak-reference
   and destruction ones while an object is referenced or freed). Running one in JS would box the
   receiver, which sends it again: unbounded recursion. Narrow on purpose: -dealloc stays
   patchable (JSPatch semantics: the engine doesn't retain self inside it), and -class,
   -respondsToSelector:, -isKindOfClass: stay patchable (the engine asks the runtime directly or
   only for its own classification of arguments). */
static const char *const reservedSelectors[] = {
    "retain", "release", "autorelease", "retainCount", "_tryRetain",
    "allowsWeakReference", "retainWeakReference", ".cxx_destruct",
};

const char *PEReservedSelectorReason(const char *selector) {
    if (!selector) return NULL;
    for (size_t i = 0; i < sizeof reservedSelectors / sizeof reservedSelectors[0]; i++)
        if (strcmp(selector, reservedSelectors[i]) == 0)
            return "is a memory-management method: the engine sends it itself when it boxes or "
                   "releases an object, so a JS or block implementation would recurse into itself";
    return NULL;
}
