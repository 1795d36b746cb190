/* Native side of the lifecycle rows (issue 9, targets 5 and 6): classes with thousands of methods
   to patch, objects that count their deallocations, and the process's resident memory. */
#ifndef PB_LIFECYCLE_H
#define PB_LIFECYCLE_H
#include <stdint.h>
#include <stdbool.h>

/* What every -m<i> of a many-methods class returns when it is not patched. */
#define PB_MANY_NATIVE (-1)

/* The NSObject subclass `name` with instance methods -(int)m0 ... -(int)m<count-1>, all sharing
   one IMP that returns PB_MANY_NATIVE; created at the first call, returned as is afterwards (the
   count must then match). NULL when a class of that name exists with a different count. */
void *pb_many_methods_class(const char *name, unsigned count);

/* [obj m<index>] sent natively; *error (malloc'd) and PB_MANY_NATIVE when it raised. */
int pb_many_call(void *object, unsigned index, char **error);

/* The IMP a send of -m<index> to an instance of `cls` reaches. */
void *pb_many_imp(void *cls, unsigned index);

/* The class PBCounted: +make returns a new autoreleased instance; every -init and -dealloc of an
   instance is counted. */
void *pb_counted_class(void);
uint64_t pb_counted_created(void);
uint64_t pb_counted_deallocated(void);

/* The process's resident set size in bytes (Linux: /proc/self/statm; Apple: the task's
   resident size); 0 when unknown. */
uint64_t pb_resident_bytes(void);
/* Bytes the C allocator has handed out and not taken back (glibc: mallinfo2's in-use bytes, all
   arenas; Apple: the default zone's in-use size): the native side of a footprint, without the JS
   heap's own mappings. 0 when unknown. */
uint64_t pb_malloc_bytes(void);
#endif
