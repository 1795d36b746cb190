/* Live layer records, counted for tests: after patches, hooks and swizzles are removed and
   retired records reclaimed, every count is back where it started. Counting happens when a
   record is made or destroyed, never per call. */
#ifndef PE_LIVE_RECORDS_H
#define PE_LIVE_RECORDS_H
#include <stdint.h>

typedef enum {
    PELiveRecordJSMethod,       /* a JS implementation installed in a slot; its address is the patch token */
    PELiveRecordSwizzleLayer,
    PELiveRecordHook,
    PELiveRecordHookPlan,
    PELiveRecordRetired,        /* retired through the epochs, not destroyed yet */
    PELiveRecordKindCount
} PELiveRecordKind;

void PELiveRecordAdjust(PELiveRecordKind kind, int64_t delta);
int64_t PELiveRecordCount(PELiveRecordKind kind);

/* Destroys every retired record no reader can still see, without retiring another. Records are
   otherwise reclaimed by later retires; tests call this to count what is left. */
void PEEpochReclaim(void);
#endif
