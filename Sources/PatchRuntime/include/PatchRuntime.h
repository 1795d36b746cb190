#ifndef PATCH_RUNTIME_H
#define PATCH_RUNTIME_H
/* The runtime core's C interface, imported by the Swift engine. */
#include "PETypeEncoding.h"
#include "PEDispatch.h"
#include "PEObjects.h"
#include "PEPools.h"
#include "PEAtomics.h"
#include "PEBlocks.h"
#include "PEClassBuilder.h"
#include "PEHooks.h"
#include "PEEngineStarted.h"
#include "PELiveRecords.h"
#include "PERuntimeScript.h"
#include "PEPrivateSymbols.h"
#include "PEThreadEntries.h"
#include "PELockDropOrder.h"
#include "PEFootprint.h"
#include "PEStressPoints.h"
#endif
