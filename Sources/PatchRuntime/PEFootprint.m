/* PEFootprint.h: the platform's reading of the process's footprint, for Swift. */
#include "PEFootprint.h"
#include "PEPlatform.h"

int64_t PEProcessFootprint(void) { return PEPlatformFootprint(); }
