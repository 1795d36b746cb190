#ifndef PE_CLASS_BUILDER_H
#define PE_CLASS_BUILDER_H
/* Creating classes and reading protocols for defineClass. */
#include <stdbool.h>

/* Allocates and registers `name` as a subclass of `superclass`. NULL with *error (malloc'd) on failure. */
void *PEClassCreate(const char *name, void *superclass, char **error);
void *PEProtocolLookup(const char *name);
/* Attaches the protocol; false when the class already conforms (nothing changed). */
bool PEClassAddProtocol(void *cls, void *protocol);
bool PEClassConformsTo(void *cls, void *protocol);
/* The protocol's encoding for the selector (required or optional, instance or class), or NULL. */
const char *PEProtocolMethodTypes(void *protocol, const char *selector, bool instanceMethod);
/* The types compiled code sends `selector` with, where the runtime records them and they are the
   same everywhere (GCC's typed selectors; one typing only); NULL otherwise, and always on Apple's
   runtime, whose selectors are untyped. */
const char *PECompiledSelectorTypes(const char *selector);
/* Creates and registers a protocol with the given methods (selector names, encodings, and whether
   each is an instance method). NULL with *error (malloc'd) when a protocol of that name exists or
   the runtime refuses. The strings are copied. */
void *PEProtocolCreate(const char *name, unsigned count, const char *const *selectors,
                       const char *const *types, const bool *instance, char **error);
/* Marks a class whose objects carry JS properties, so they are cleared when -dealloc runs. */
bool PEClassEnablePropertyCleanup(void *cls, char **error);

#endif
