/* What a native send would run: the IMP the runtime holds for a method, to compare before and
   after patches come and go. */
#ifndef PF_IMPLEMENTATION_FIXTURE_H
#define PF_IMPLEMENTATION_FIXTURE_H
#include <stdint.h>

/* method_getImplementation of className's instance (or, classMethod != 0, class) method
   `selector` (inherited methods included); 0 when there is none. */
uintptr_t pf_method_implementation(const char *className, const char *selector, int classMethod);
/* A new instance of className (+1); release it with pf_release. */
void *pf_new_instance(const char *className);
#endif
