/* PEFootprint.h: the platform's reading of the process's footprint, and its giving back of freed
   C heap memory, for Swift. */
#include "PEFootprint.h"
#include "PEEnginePlatform.h"

int64_t PEProcessFootprint(void) { return PEPlatformFootprint(); }

void PEReleaseFreeMallocMemory(void) { PEPlatformReleaseFreeMallocMemory(); }
