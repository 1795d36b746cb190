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

const char *PECompiledSelectorTypes(const char *selector) {
#if PE_GNU_RUNTIME
    SEL typed = sel_getTypedSelector(selector);
    return typed ? sel_getTypeEncoding(typed) : NULL;
#else
    (void)selector;
    return NULL;   /* Apple's selectors carry no types. */
#endif
}

bool PEClassEnablePropertyCleanup(void *cls, char **error) {
    return PESlotEnableObjectStateCleanup((Class)cls, error);
}

#if PE_GNU_RUNTIME
/* GCC's runtime has no objc_allocateProtocol: a protocol is built in the GCC ABI's layout
   (module-abi-8.h: class pointer, name, inherited list, instance and class method description
   lists, with registered selectors, as the runtime leaves them after loading a module) and
   registered with the exported __objc_protocols_add_protocol, which objc_getProtocol reads. */
extern void __objc_protocols_add_protocol(const char *name, struct PEGNUProtocol *object);

/* The types as GCC's runtime can parse them: it rejects a block's "@?" (and its extended
   "<...>" signature) with an abort, so anything reading the protocol (GNUstep's forwarding does)
   would end the process. A block is an object to it. */
static char *runtimeTypes(const char *types) {
    char *out = malloc(strlen(types) + 1), *o = out;
    for (const char *p = types; *p; p++) {
        *o++ = *p;
        if (*p == '@' && p[1] == '?') {
            p++;
            if (p[1] == '<') { int depth = 0; do { p++; if (*p == '<') depth++; else if (*p == '>') depth--; } while (*p && depth > 0); }
        }
    }
    *o = 0;
    return out;
}

static struct PEGNUMethodDescriptionList *descriptionList(unsigned count, const char *const *selectors,
                                                         const char *const *types, const bool *instance, bool wanted) {
    struct PEGNUMethodDescriptionList *list = calloc(1, sizeof *list + sizeof(struct objc_method_description) * (count + 1));
    for (unsigned i = 0; i < count; i++) {
        if (instance[i] != wanted) continue;
        char *t = runtimeTypes(types[i]);
        list->list[list->count].name = sel_registerTypedName(selectors[i], t);
        list->list[list->count].types = t;
        list->count++;
    }
    return list;
}

static void *makeProtocol(const char *name, unsigned count, const char *const *selectors, const char *const *types,
                          const bool *instance, struct PEGNUProtocolList *inherited, char **error) {
    if (objc_getProtocol(name)) { if (error) *error = strdup("a protocol with that name exists"); return NULL; }
    Class protocolClass = objc_lookUpClass("Protocol");
    if (!protocolClass) { if (error) *error = strdup("the runtime has no Protocol class"); return NULL; }
    struct PEGNUProtocol *proto = calloc(1, sizeof *proto);
    proto->class_pointer = protocolClass;
    proto->protocol_name = strdup(name);
    proto->protocol_list = inherited;
    proto->instance_methods = descriptionList(count, selectors, types, instance, true);
    proto->class_methods = descriptionList(count, selectors, types, instance, false);
    __objc_protocols_add_protocol(proto->protocol_name, proto);
    return proto;
}

void *PEGNUProtocolCreate(const char *name, unsigned count, const char *const *selectors, const char *const *types,
                          const bool *instance, struct PEGNUProtocolList *inherited, char **error) {
    /* One at a time: defineProtocol and a compiled protocol's twin (PEGNUCanonicalProtocol) may
       be made for one name on two threads, and the runtime's table keeps the first. */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    void *proto = makeProtocol(name, count, selectors, types, instance, inherited, error);
    pthread_mutex_unlock(&lock);
    return proto;
}

void *PEProtocolCreate(const char *name, unsigned count, const char *const *selectors,
                       const char *const *types, const bool *instance, char **error) {
    return PEGNUProtocolCreate(name, count, selectors, types, instance, NULL, error);
}
#else
void *PEProtocolCreate(const char *name, unsigned count, const char *const *selectors,
                       const char *const *types, const bool *instance, char **error) {
    Protocol *proto = objc_allocateProtocol(name);
    if (!proto) { if (error) *error = strdup("a protocol with that name exists"); return NULL; }
    for (unsigned i = 0; i < count; i++)
        protocol_addMethodDescription(proto, sel_registerName(selectors[i]), types[i], YES, instance[i]);
    objc_registerProtocol(proto);
    return proto;
}
#endif
