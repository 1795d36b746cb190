/* Test seam of a script's top level (JSEntry.swift, `evaluateRaw`): called after the script ran
   and before its context of no method is swapped back. Where JavaScriptCore's API lock can't be
   held across C API calls (no JSLock: the App Store configuration) nothing is held there, and a
   test sets it to let another thread's JS run exactly then. NULL: none. */
#ifndef PE_TOP_LEVEL_SEAM_H
#define PE_TOP_LEVEL_SEAM_H

void PETopLevelSetBeforeLeaveHook(void (*hook)(void));
void PETopLevelBeforeLeave(void);

#endif
