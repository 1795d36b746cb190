#import "PFSupport.h"
#import "PFImplementationFixture.h"

uintptr_t pf_method_implementation(const char *className, const char *selector, int classMethod)
{
    Class cls = objc_getClass(className);
    if (!cls) return 0;
    SEL sel = sel_registerName(selector);
    Method method = classMethod ? class_getClassMethod(cls, sel) : class_getInstanceMethod(cls, sel);
    return method ? (uintptr_t)method_getImplementation(method) : 0;
}

void *pf_new_instance(const char *className)
{
    return [objc_getClass(className) new];
}
