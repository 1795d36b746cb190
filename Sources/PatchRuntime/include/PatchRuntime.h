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
#include "PELiveRecords.h"
#include "PEPrivateSymbols.h"
#include "PEStressPoints.h"
#endif
