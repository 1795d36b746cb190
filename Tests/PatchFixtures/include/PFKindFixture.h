/* The first conversions of a process (PEObjectGetKind) made by several threads at once. */
#ifndef PF_KIND_FIXTURE_H
#define PF_KIND_FIXTURE_H

/* Must be the process's first use of PEObjectGetKind (a child process). Thread 0 starts the
   lookup of the classes the kinds are told by and is held inside it (PEObjectKindSetLoadHook)
   until the other `threads - 1` threads have each classified a number, @YES, a string, an array,
   a dictionary and NSNull, or 5 s have passed; then it classifies them too. Returns the number of
   wrong kinds over all threads; -1 if the lookup had already been made (not a first use), -2 if
   the threads could not be started. */
int pf_kind_first_use(int threads);

#endif
