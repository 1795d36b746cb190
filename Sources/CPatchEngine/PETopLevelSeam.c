#include "PETopLevelSeam.h"
#include <stddef.h>

static void (*volatile beforeLeaveHook)(void);

void PETopLevelSetBeforeLeaveHook(void (*hook)(void)) { beforeLeaveHook = hook; }

void PETopLevelBeforeLeave(void) {
    void (*hook)(void) = beforeLeaveHook;
    if (hook != NULL) hook();
}
