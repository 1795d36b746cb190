#ifndef PE_OBJECTS_H
#define PE_OBJECTS_H
/* Object operations for the Swift engine, which cannot message Objective-C objects on Linux.
   Objects are `void *`. Creation functions return autoreleased objects: callers keep an
   autorelease pool (PEPools.h) around bridge calls. Strings returned as `char *` are malloc'd and
   freed by the caller. */
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum PEObjectKind {
    PEObjectKindOther = 0,
    PEObjectKindString, PEObjectKindNumber, PEObjectKindBoolean, PEObjectKindArray,
    PEObjectKindDictionary, PEObjectKindNull, PEObjectKindBlock, PEObjectKindClass,
} PEObjectKind;

void PEThreadRegister(void);

/* For JS finalizers: queues the release (objects and blocks), since releasing can run -dealloc or a
   block's dispose, which may call back into JavaScript, and JavaScriptCore must not be re-entered
   while it collects. PEDrainDeferredReleases performs them; the engine calls it at safe points. */
void PEDeferRelease(void *obj);
void PEDrainDeferredReleases(void);
/* Keeps `obj` past the bridge's own autorelease pool: retained now, autoreleased by
   PEFlushDeferredAutoreleases after that pool is gone (into the native caller's pool). Per thread. */
void PEDeferAutorelease(void *obj);
void PEFlushDeferredAutoreleases(void);
/* Protocol objects (objc_getProtocol, @protocol) live as long as the program and are never
   retained or released here: on GCC's runtime a Protocol is an object of class Protocol, a
   subclass of the runtime's bare root class `Object`, which answers no -retain, -release,
   -description or -isKindOfClass: (a message it lacks raises), so every object operation below
   checks for one. A compiled `@protocol(X)` may also be one the runtime never registered, which
   has no class at all (PEPlatform.h). */
bool PEObjectIsProtocol(void *obj);
/* The object as it should cross into JavaScript: a protocol object becomes the runtime's one for
   its name (objc_getProtocol), so that it has a class, answers messages as a protocol does, and
   is the same pointer as `protocol('X')`; any other object is returned as it is. */
void *PEObjectCanonical(void *obj);
void *PEObjectRetain(void *obj);
void PEObjectRelease(void *obj);
void *PEObjectAutorelease(void *obj);
/* Frees malloc'd `bytes` when the current autorelease pool drains. */
void PEAutoreleaseMalloced(void *bytes, size_t length);
PEObjectKind PEObjectGetKind(void *obj);
/* Tests: called in the middle of each lookup of the classes PEObjectGetKind tests against (made
   by every thread that finds none published yet, at the first uses in the process), so a test
   can hold one thread there while others make their first conversions. */
void PEObjectKindSetLoadHook(void (*hook)(void));
void *PEObjectGetClass(void *obj);              /* object_getClass: the metaclass for a class object */
/* Whether `obj` has a first word that says its class (not a tagged pointer), and which of its bits
   do (`*mask`): the word changes exactly when object_setClass changes the object's class. */
bool PEObjectClassWord(void *obj, uintptr_t *mask);
const char *PEClassGetName(void *cls);
void *PEClassGetSuperclass(void *cls);
bool PEClassIsMetaClass(void *cls);
void *PEClassLookup(const char *name);          /* NULL when unknown */
void *PEClassGetMetaClass(void *cls);
char *PEObjectDescription(void *obj);
/* Method types for a selector as a message to `receiver` would find it (instance or class method). */
const char *PEObjectMethodTypes(void *receiver, const char *selector);
/* Types from -methodSignatureForSelector: (classes that forward); malloc'd, NULL if none. */
char *PEObjectForwardedMethodTypes(void *receiver, const char *selector, char **error);
bool PEObjectRespondsTo(void *receiver, const char *selector);
const char *PEClassInstanceMethodTypes(void *cls, const char *selector);   /* includes inherited */
const void *PESelectorRegister(const char *name);
const char *PESelectorGetName(const void *sel);

void *PEStringCreate(const char *utf8, size_t length);
char *PEStringCopyUTF8(void *string, size_t *length);
void *PENumberCreateDouble(double value);
void *PENumberCreateBool(bool value);
double PENumberGetDouble(void *number);
void *PENull(void);
void *PEArrayCreate(void);
void PEArrayAppend(void *array, void *obj);    /* nil is stored as NSNull */
size_t PEArrayCount(void *array);
void *PEArrayGet(void *array, size_t index);
void *PEDictionaryCreate(void);
void PEDictionarySet(void *dict, void *key, void *value);
size_t PEDictionaryCount(void *dict);
void *PEDictionaryKeys(void *dict);            /* an NSArray of the keys */
void *PEDictionaryGet(void *dict, void *key);

/* Called when an object whose class has object-state cleanup (PEClassEnablePropertyCleanup)
   starts its -dealloc, before the class's -dealloc runs (its memory may be reused by another
   thread's allocation before that call returns): how the engine zeroes its weak references. */
typedef void (*PEObjectDeallocHandler)(void *object);
void PESetObjectDeallocHandler(PEObjectDeallocHandler handler);
/* Called when that -dealloc returns (the memory is gone), on the same thread. */
void PESetObjectDeallocEndHandler(PEObjectDeallocHandler handler);
/* Whether this thread is running `object`'s -dealloc through that cleanup. */
bool PEObjectIsDeallocatingOnThisThread(void *object);

/* Values kept for an object by the engine (JS-defined properties). Linux: a side table cleared when
   the object is deallocated; Apple: associated objects. */
void *PEPropertyGet(void *obj, const char *key);
void PEPropertySet(void *obj, const char *key, void *value);

#endif
