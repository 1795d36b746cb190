/* runtime.js, direct.js and jspatch.js embedded at build time (PERuntimeScript.h). The compiler records the
   files as dependencies of this one, so editing either rebuilds it. */
#include "PEPlatform.h"
#include "PERuntimeScript.h"

#if PE_EMBEDS_RUNTIME_SCRIPT
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const char runtimeScript[] = {
#embed "../PatchEngine/Resources/runtime.js"
    , 0
};

static const char directCallsScript[] = {
#embed "../PatchEngine/Resources/direct.js"
    , 0
};

static const char jspatchScript[] = {
#embed "../PatchEngine/Resources/jspatch.js"
    , 0
};
#pragma clang diagnostic pop

const char *PERuntimeScriptSource(void) { return runtimeScript; }
const char *PEDirectCallsScriptSource(void) { return directCallsScript; }
const char *PEJSPatchScriptSource(void) { return jspatchScript; }
#else
const char *PERuntimeScriptSource(void) { return NULL; }
const char *PEDirectCallsScriptSource(void) { return NULL; }
const char *PEJSPatchScriptSource(void) { return NULL; }
#endif
