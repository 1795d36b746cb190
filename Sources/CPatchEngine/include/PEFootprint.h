/* The process's memory footprint for the engine's heap growth limit (HeapGrowthLimit.swift), and
   giving freed C heap memory back (PatchEngine.collectGarbage); the platform differences are
   PEPlatformFootprint and PEPlatformReleaseFreeMallocMemory in PEEnginePlatform.h. */
#ifndef PE_FOOTPRINT_H
#define PE_FOOTPRINT_H
#include <stdint.h>

/* Bytes the OS counts against the process now (Linux: resident; Apple: phys_footprint); -1 when
   it can't be read. A system call or two: not for every call. */
int64_t PEProcessFootprint(void);

/* Hands the C heap's free pages back to the system now (PEPlatformReleaseFreeMallocMemory). Walks
   the allocator's free lists: for memory warnings and after a patch's heap growth, not per call. */
void PEReleaseFreeMallocMemory(void);
#endif
