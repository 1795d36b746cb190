/* Internals of GCC's Objective-C runtime that the core has to reach past libobjc's public API
   (Linux only; PEPlatform.h says why each is needed). */
#include "PEPlatform.h"

#if PE_GNU_RUNTIME
#include <objc/thr.h>
#include <pthread.h>

/* Exported by libobjc, declared only in its private headers. */
extern objc_mutex_t __objc_runtime_mutex;
extern void *__objc_uninstalled_dtable;
void sarray_at_put_safe(void *array, size_t index, void *element);
void __objc_update_dispatch_table_for_class(Class cls);

/* A registered selector: its first field is the dispatch-table index. */
struct PEGNUSelector { void *index; const char *types; };

/* libobjc's sparse array (sarray.h, two-level layout, the one Debian's libobjc is built with:
   `sarray_at_put_safe` compares the decoded index with the field at offset 40). */
struct PEGNUSparseArray {
    void **buckets;
    void *emptyBucket;
    union { int version; void *nextFree; } version;
    short refCount;
    struct PEGNUSparseArray *copyOf;
    size_t capacity;
};

/* An index holds a bucket number (low half) and a slot in a 32-entry bucket (high half). */
static bool tableHolds(void *table, size_t index) {
    size_t decoded = ((index & 0xffffffffUL) << 5) + (index >> 32);
    return decoded < ((struct PEGNUSparseArray *)table)->capacity;
}

static size_t selectorIndex(SEL sel) { return (size_t)((struct PEGNUSelector *)(void *)sel)->index; }

/* The layouts above, checked once on NSObject's table: a libobjc built otherwise gets the
   runtime's own class_addMethod. */
static bool layoutsMatch(void) {
    static int verdict;     /* 0 unknown, 1 yes, -1 no */
    int known = __atomic_load_n(&verdict, __ATOMIC_ACQUIRE);
    if (known) return known > 0;
    Class root = objc_getClass("NSObject");
    SEL probe = @selector(description);
    bool ok = false;
    if (root && class_respondsToSelector(root, probe)) {
        struct PEGNUSparseArray *table = ((struct PEGNUClass *)(void *)root)->dtable;
        ok = table && (void *)table != __objc_uninstalled_dtable && table->capacity > 0
            && table->capacity % 32 == 0 && table->capacity < (1UL << 24) && table->refCount >= 1
            && tableHolds(table, selectorIndex(probe));
    }
    __atomic_store_n(&verdict, ok ? 1 : -1, __ATOMIC_RELEASE);
    return ok;
}

/* Whether every built table of `cls` and its subclasses can take `index` without growing:
   growing a table frees its bucket list while readers may hold it. */
static bool tablesHold(struct PEGNUClass *cls, size_t index) {
    if (cls->dtable != __objc_uninstalled_dtable && !tableHolds(cls->dtable, index)) return false;
    for (struct PEGNUClass *sub = cls->subclasses; sub; sub = sub->nextSibling)
        if (!tablesHold(sub, index)) return false;
    return true;
}

void PEGNUNormalizeClasses(void) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int normalized;
    int count = objc_getClassList(NULL, 0);
    if (count == __atomic_load_n(&normalized, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&lock);
    Class *classes = malloc(sizeof(Class) * (size_t)(count + 16));
    count = objc_getClassList(classes, count + 16);
    for (int i = 0; i < count; i++) {
        PEGNUClearStrayConstructionFlag(classes[i]);
        PEGNUClearStrayConstructionFlag(object_getClass((id)classes[i]));
    }
    free(classes);
    __atomic_store_n(&normalized, count, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

static void refreshSubclasses(struct PEGNUClass *cls, SEL sel, size_t index) {
    for (struct PEGNUClass *sub = cls->subclasses; sub; sub = sub->nextSibling) {
        if (sub->dtable == __objc_uninstalled_dtable) {
            /* No table yet: it will be built from the method lists then. For a class inside
               +initialize the runtime's call redoes the table prepared for it (as class_addMethod
               does), so the one installed afterwards is not stale. */
            __objc_update_dispatch_table_for_class((Class)sub);
        } else {
            /* The answer the table would get if rebuilt: the nearest definition, which is the
               subclass's own override when it has one (then the write changes nothing). The
               index fits: the table was built or rebuilt after `cls` had the method. */
            Method answer = class_getInstanceMethod((Class)sub, sel);
            if (answer) sarray_at_put_safe(sub->dtable, index, (void *)method_getImplementation(answer));
        }
        refreshSubclasses(sub, sel, index);
    }
}

void PEGNURefreshInherited(Class cls, SEL sel) {
    if (!cls || !sel) return;
    /* The lock every dispatch-table writer of the runtime takes (recursive). */
    objc_mutex_lock(__objc_runtime_mutex);
    refreshSubclasses((struct PEGNUClass *)(void *)cls, sel, selectorIndex(sel));
    objc_mutex_unlock(__objc_runtime_mutex);
}

IMP PEGNUSetOwnImplementation(Class cls, Method own, IMP imp) {
    /* libobjc's struct objc_method (module-abi-8.h), checked against its accessors per call. */
    struct PEGNUMethod { SEL name; const char *types; IMP imp; } *method = (void *)own;
    struct PEGNUClass *c = (struct PEGNUClass *)(void *)cls;
    if (!layoutsMatch() || method->imp != method_getImplementation(own) || method->name != method_getName(own)) {
        IMP previous = method_setImplementation(own, imp);
        PEGNURefreshInherited(cls, method_getName(own));
        return previous;
    }
    objc_mutex_lock(__objc_runtime_mutex);
    IMP previous = method->imp;
    __atomic_store_n(&method->imp, imp, __ATOMIC_RELEASE);
    size_t index = selectorIndex(method->name);
    /* What __objc_update_classes_with_methods writes for the owner: its table, if built (it
       holds the index: it was built with the method). */
    if (c->dtable != __objc_uninstalled_dtable) sarray_at_put_safe(c->dtable, index, (void *)imp);
    refreshSubclasses(c, method->name, index);
    objc_mutex_unlock(__objc_runtime_mutex);
    return previous;
}

bool PEGNUAddMethod(Class cls, SEL sel, IMP imp, const char *types) {
    struct PEGNUClass *c = (struct PEGNUClass *)(void *)cls;
    bool layouts = layoutsMatch();
    objc_mutex_lock(__objc_runtime_mutex);
    void *table = c->dtable;
    bool inPlace = layouts && table != __objc_uninstalled_dtable && tablesHold(c, selectorIndex(sel));
    /* class_addMethod rebuilds the class's table only when one is installed: with the table
       taken away for the call, there is nothing to free. A message to the class meanwhile finds
       no table and takes the runtime's slow path, which waits for this lock and then uses the
       table put back. */
    if (inPlace) __atomic_store_n(&c->dtable, __objc_uninstalled_dtable, __ATOMIC_RELEASE);
    bool added = class_addMethod(cls, sel, imp, types);
    if (inPlace) {
        __atomic_store_n(&c->dtable, table, __ATOMIC_RELEASE);
        if (added) {
            sarray_at_put_safe(table, selectorIndex(sel), (void *)imp);
            refreshSubclasses(c, sel, selectorIndex(sel));
        }
    }
    objc_mutex_unlock(__objc_runtime_mutex);
    return added;
}
/* A compiled protocol no module registered: its method descriptions still hold selector names,
   not selectors (the runtime registers them when it registers the protocol). */
static void *registerTwin(struct PEGNUProtocol *compiled) {
    size_t parents = 0;
    for (struct PEGNUProtocolList *l = compiled->protocol_list; l; l = l->next) parents += l->count;
    /* Kept by the twin for the process, as a loaded module's list is. Protocols can't inherit in
       a cycle, so the recursion ends. */
    struct PEGNUProtocolList *inherited = NULL;
    if (parents) {
        inherited = calloc(1, sizeof *inherited + parents * sizeof(struct PEGNUProtocol *));
        for (struct PEGNUProtocolList *l = compiled->protocol_list; l; l = l->next)
            for (size_t i = 0; i < l->count; i++)
                if (l->list[i]) inherited->list[inherited->count++] = PEGNUCanonicalProtocol(l->list[i]);
    }
    struct PEGNUMethodDescriptionList *lists[2] = { compiled->instance_methods, compiled->class_methods };
    unsigned total = 0;
    for (int k = 0; k < 2; k++) if (lists[k] && lists[k]->count > 0) total += (unsigned)lists[k]->count;
    const char **names = calloc(total + 1, sizeof *names), **types = calloc(total + 1, sizeof *types);
    bool *instance = calloc(total + 1, sizeof *instance);
    unsigned n = 0;
    for (int k = 0; k < 2; k++) {
        for (int i = 0; lists[k] && i < lists[k]->count; i++) {
            const char *name = (const char *)(void *)lists[k]->list[i].name, *t = lists[k]->list[i].types;
            if (!name || !t) continue;
            names[n] = name; types[n] = t; instance[n] = k == 0; n++;
        }
    }
    void *twin = PEGNUProtocolCreate(compiled->protocol_name, n, names, types, instance, inherited, NULL);
    free(names); free(types); free(instance);
    if (!twin) {
        free(inherited);   /* another thread registered one meanwhile */
        twin = objc_getProtocol(compiled->protocol_name);
    }
    return twin;
}

void *PEGNUCanonicalProtocol(void *protocol) {
    struct PEGNUProtocol *p = protocol;
    /* protocol_getName answers NULL for an unregistered one: its name is read from the ABI's field. */
    if (!p || !p->protocol_name) return protocol;
    void *registered = objc_getProtocol(p->protocol_name);
    if (!registered && (uintptr_t)p->class_pointer == PE_GNU_UNREGISTERED_PROTOCOL_WORD) registered = registerTwin(p);
    return registered ? registered : protocol;
}
#endif
