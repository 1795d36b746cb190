/* <malloc/malloc.h> for `make apple-check` only (the tool's kit has malloc/_malloc.h alone): what
   the package's Objective-C uses, copied in shape from the SDK's malloc/malloc.h. */
#ifndef PE_APPLE_CHECK_MALLOC_H
#define PE_APPLE_CHECK_MALLOC_H
#include <stddef.h>

typedef struct _malloc_zone_t malloc_zone_t;
typedef struct malloc_statistics_t {
    unsigned blocks_in_use;
    size_t size_in_use;
    size_t max_size_in_use;
    size_t size_allocated;
} malloc_statistics_t;
extern void malloc_zone_statistics(malloc_zone_t *zone, malloc_statistics_t *stats);
extern size_t malloc_zone_pressure_relief(malloc_zone_t *zone, size_t goal);
#endif
