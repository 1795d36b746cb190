/* Private helpers shared by the toolkit fixtures (hooks, swizzles, the delegate tracker): the layer log,
   the table of live tokens, stable C strings for blocks to capture. Not seen by Swift. */
#import "PFSupport.h"
#import "PEAspects.h"
#import "PESwizzle.h"
#include "PEObjects.h"

/* Appends one entry to the layer log (thread-safe). */
void PFTkLog(NSString *entry);
void PFTkLogFormat(NSString *format, ...);
/* Logs "dealloc" for an object of the family the running test took last (pf_tk_set_current_family):
   objects of earlier tests' families are freed whenever JavaScriptCore's collector finalizes their
   boxes, and must not appear in another test's log. */
void PFTkLogDealloc(id object);

/* Keeps a token (anything answering -remove) and returns its handle (> 0). */
int PFTkKeep(id token);

/* A copy of `text` that lives for the process. Blocks capture these instead of NSStrings:
   on GCC's runtime the Blocks runtime does not retain captured objects. */
const char *PFTkIntern(const char *text);

/* Every toolkit entry point may run on a thread GNUstep has never seen (Dispatch workers). */
#define PFTK_BEGIN PEThreadRegister(); PF_POOL_BEGIN
#define PFTK_END PF_POOL_END
