/* Every private symbol the engine uses: not API on Apple's platforms (nor declared by an installed
   header here), so none is linked; each is looked up by name at run time, and each has a fallback
   the engine runs on when it is absent. docs/private-symbols.md lists them with their fallbacks.
   The lookup and its two switches are here, once; the names live with the layer that uses them:
   the Objective-C runtime's below, JavaScriptCore's in the engine's C support
   (CPatchEngine's PEJSCPrivateSymbols.h, through PEPrivateSymbolLookUp).

   An App Store build leaves them all out: PATCHENGINE_NO_PRIVATE_API=1 in the environment when the
   package is built defines PE_NO_PRIVATE_API (C) and PATCHENGINE_NO_PRIVATE_API (Swift); the
   names are then not even in the binary and every lookup gives NULL. At run time,
   PATCHENGINE_PRIVATE_SYMBOLS=absent makes every lookup give NULL too, so the fallbacks are tested
   on any build. */
#ifndef PE_PRIVATE_SYMBOLS_H
#define PE_PRIVATE_SYMBOLS_H
#include <stdbool.h>

typedef enum PEPrivateSymbol {
    /* libobjc (Apple): which bits of an object's first word are its class; which pointers are
       tagged (no first word). Exported for debuggers. Fallback: the class word is not read, so
       calls of JS-defined methods from JS go through native code each time (PEObjectClassWord). */
    PEPrivateSymbolObjCIsaClassMask,
    PEPrivateSymbolObjCTaggedPointerMask,
    PEPrivateSymbolCount
} PEPrivateSymbol;

/* The symbol's address; NULL when this platform or build lacks it, when the build leaves private
   symbols out, or with PATCHENGINE_PRIVATE_SYMBOLS=absent. Looked up once. */
void *PEPrivateSymbolAddress(PEPrivateSymbol symbol);
/* The name looked up ("" in a build without private symbols). */
const char *PEPrivateSymbolName(PEPrivateSymbol symbol);
/* Whether this build was made without private symbols (PATCHENGINE_NO_PRIVATE_API). */
bool PEPrivateSymbolsRemoved(void);
/* `name` looked up in the process's global scope under the same rules: NULL for "" (a name an App
   Store build left out), in a build without private symbols, or with
   PATCHENGINE_PRIVATE_SYMBOLS=absent. Not cached: for registries above this one, which cache. */
void *PEPrivateSymbolLookUp(const char *name);

#endif
