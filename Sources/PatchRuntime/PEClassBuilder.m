/* Class creation and protocol lookups for defineClass. */
#include "PESlot.h"
#include "PEClassBuilder.h"
#include <string.h>

void *PEClassCreate(const char *name, void *superclass, char **error) {
    if (objc_lookUpClass(name)) { if (error) *error = strdup("a class with that name exists"); return NULL; }
    Class cls = objc_allocateClassPair((Class)superclass, name, 0);
    if (!cls) { if (error) *error = strdup("the runtime refused to create the class"); return NULL; }
    objc_registerClassPair(cls);
    return cls;
}

void *PEProtocolLookup(const char *name) { return objc_getProtocol(name); }

bool PEClassConformsTo(void *cls, void *protocol) {
    return class_conformsToProtocol((Class)cls, (Protocol *)protocol);
}

bool PEClassAddProtocol(void *cls, void *protocol) {
    if (class_conformsToProtocol((Class)cls, (Protocol *)protocol)) return false;
    return class_addProtocol((Class)cls, (Protocol *)protocol);
}

const char *PEProtocolMethodTypes(void *protocol, const char *selector, bool instanceMethod) {
    SEL sel = sel_registerName(selector);
    for (int required = 1; required >= 0; required--) {
        struct objc_method_description d = protocol_getMethodDescription((Protocol *)protocol, sel, (BOOL)required, instanceMethod);
        if (d.types) return d.types;
    }
    return NULL;
}

bool PEClassEnablePropertyCleanup(void *cls, char **error) {
    return PESlotEnableObjectStateCleanup((Class)cls, error);
}
