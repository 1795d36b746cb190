#ifndef C_PATCH_ENGINE_H
#define C_PATCH_ENGINE_H
/* The engine's C support, imported by the Swift engine (PatchEngine): what Swift can't express on
   the platforms the package supports (thread-local storage, atomics and a condition variable
   without macOS 15's Synchronization; #embed; the platform's memory calls). Plain C. It uses the
   runtime core (PatchRuntime) for its stress points; the runtime core uses nothing here. */
#include "PEEngineStarted.h"
#include "PERuntimeScript.h"
#include "PEThreadEntries.h"
#include "PELockDropOrder.h"
#include "PEFootprint.h"
#include "PEJSCPrivateSymbols.h"
#include "PEJSCInternalCall.h"
#include "PECheckPoints.h"
#include "PETopLevelSeam.h"
#endif
