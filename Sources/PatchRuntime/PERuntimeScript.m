/* runtime.js embedded at build time (PERuntimeScript.h). The compiler records the file as a
   dependency of this one, so editing runtime.js rebuilds it. */
#include "PEPlatform.h"
#include "PERuntimeScript.h"

#if PE_EMBEDS_RUNTIME_SCRIPT
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const char runtimeScript[] = {
#embed "../PatchEngine/Resources/runtime.js"
    , 0
};
#pragma clang diagnostic pop

const char *PERuntimeScriptSource(void) { return runtimeScript; }
#else
const char *PERuntimeScriptSource(void) { return NULL; }
#endif
