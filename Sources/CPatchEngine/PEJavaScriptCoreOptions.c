/* JavaScriptCore options the engine needs, set before JavaScriptCore initialises (it reads them
   once, at its first context or group; PEEnginePlatform.h says which and why). */
#include "PEEnginePlatform.h"

/* Constructors run before main, so before the app or the engine makes any context. */
__attribute__((constructor)) static void chooseJavaScriptCoreOptions(void) {
    PEPlatformChooseJSCTraps();
}
