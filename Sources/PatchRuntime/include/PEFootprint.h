/* The process's memory footprint for the engine's heap growth limit (HeapGrowthLimit.swift); the
   platform difference is PEPlatformFootprint in PEPlatform.h. */
#ifndef PE_FOOTPRINT_H
#define PE_FOOTPRINT_H
#include <stdint.h>

/* Bytes the OS counts against the process now (Linux: resident; Apple: phys_footprint); -1 when
   it can't be read. A system call or two: not for every call. */
int64_t PEProcessFootprint(void);
#endif
