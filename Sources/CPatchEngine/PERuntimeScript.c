/* runtime.js, direct.js and jspatch.js (Scripts/, the files people edit) embedded at build time
   (PERuntimeScript.h). The compiler records the files as dependencies of this one, so editing one
   rebuilds it. */
#include "PERuntimeScript.h"

/* C23's #embed: clang 19 and later, so every toolchain that reads this package's manifest (Swift
   tools 6.2: the swift.org toolchain's clang on Linux, Xcode 26's on Apple platforms). A compiler
   without it stops here rather than building an engine without its scripts. */
#if !defined(__has_embed)
#error "PatchEngine embeds its scripts with C23 #embed: build with clang 19 or later (Swift 6.2's toolchain)"
#elif !__has_embed("Scripts/runtime.js")
#error "Scripts/runtime.js is missing beside PERuntimeScript.c"
#endif

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const char runtimeScript[] = {
#embed "Scripts/runtime.js"
    , 0
};

static const char directCallsScript[] = {
#embed "Scripts/direct.js"
    , 0
};

static const char jspatchScript[] = {
#embed "Scripts/jspatch.js"
    , 0
};
#pragma clang diagnostic pop

const char *PERuntimeScriptSource(void) { return runtimeScript; }
const char *PEDirectCallsScriptSource(void) { return directCallsScript; }
const char *PEJSPatchScriptSource(void) { return jspatchScript; }
