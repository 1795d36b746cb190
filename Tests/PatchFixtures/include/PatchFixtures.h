/* Objective-C fixture classes for the engine's tests, reached from Swift through plain C
   functions that call the fixtures natively (Swift on Linux imports no Objective-C).
   Every char * these functions return is malloc'd: the caller frees it. */
#ifndef PATCH_FIXTURES_H
#define PATCH_FIXTURES_H

#include "PFNative.h"
#include "PFTypesFixture.h"
#include "PFValuesFixture.h"
#include "PFStructsFixture.h"
#include "PFBlocksFixture.h"
#include "PFOverrideFixture.h"
#include "PFClassMethodsFixture.h"
#include "PFHierarchyFixture.h"
#include "PFForwardingFixture.h"
#include "PFPropertiesFixture.h"
#include "PFProtocolsFixture.h"
#include "PFProbeFixture.h"
#include "PFPointersFixture.h"
#include "PFErrorsFixture.h"
#include "PFConcurrencyFixture.h"
#include "PFSelectorsFixture.h"
#include "PFToolkitFixture.h"
#include "PFAspectsFixture.h"
#include "PFSwizzleFixture.h"
#include "PFDelegateTrackerFixture.h"
#include "PFImplementationFixture.h"
#include "PFDirectCallsFixture.h"
#include "PFLockDropFixture.h"
#include "PFLateInitializeFixture.h"
#include "PFProtocolValuesFixture.h"
#include "PFEnumerationFixture.h"
#include "PFRecycledFixture.h"
#include "PFChainFixture.h"
#include "PFKindFixture.h"

#endif
#include "PFModulesFixture.h"
