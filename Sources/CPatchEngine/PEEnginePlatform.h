/* Every difference between the platforms (Linux; Apple's macOS and iOS) that the engine's C support
   depends on: the process's memory and JavaScriptCore's options. The Objective-C runtime's
   differences are the runtime core's (Sources/PatchRuntime/PEPlatform.h); the build flags are
   Package.swift's. Plain C: this target compiles without Objective-C. */
#ifndef PE_ENGINE_PLATFORM_H
#define PE_ENGINE_PLATFORM_H
#include <stdint.h>
#include <stdlib.h>

/* The process's memory as the OS judges it, in bytes (-1 if unreadable): what the heap growth
   limit (HeapGrowthLimit.swift) watches while a patch's JS runs. Linux: resident pages
   (/proc/self/statm, second field), what the OOM killer weighs. Apple: the task's
   phys_footprint (proc_pid_rusage), what Jetsam kills an iOS app for; resident size there counts
   shared and compressed pages differently. Read a few times a second at most, so a file read is
   fine here. */
#if defined(__linux__)
#include <fcntl.h>
#include <unistd.h>
static inline int64_t PEPlatformFootprint(void) {
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char text[128];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return -1;
    text[n] = 0;
    char *end = NULL;
    (void)strtoll(text, &end, 10);            /* total program size */
    long long resident = strtoll(end, NULL, 10);
    return resident * (int64_t)sysconf(_SC_PAGESIZE);
}
#elif defined(__APPLE__)
#include <sys/resource.h>
#include <unistd.h>
/* libproc.h's prototype: the function is in libSystem on macOS and iOS (10.9 / 7.0), but iOS's
   SDK ships no libproc.h. ri_phys_footprint is the kernel's phys_footprint, the number
   task_info(TASK_VM_INFO) also reports. */
int proc_pid_rusage(int pid, int flavor, rusage_info_t *buffer);
static inline int64_t PEPlatformFootprint(void) {
    struct rusage_info_v4 info;
    if (proc_pid_rusage(getpid(), RUSAGE_INFO_V4, (rusage_info_t *)&info) != 0) return -1;
    return (int64_t)info.ri_phys_footprint;
}
#else
static inline int64_t PEPlatformFootprint(void) { return -1; }
#endif

/* Freed C heap memory goes back to the system on its own only from the top of the heap: after a
   script dropped 1,000,000 Objective-C objects (small malloc blocks each), live blocks allocated
   after them kept ~26 MB of freed blocks resident
   (patchbench's memory row: 69 MB before, 95 MB after PatchEngine.collectGarbage; 64 MB once this
   ran). PatchEngine.collectGarbage and the heap growth limit's clean-up call it. Linux (glibc):
   malloc_trim(0), which also releases free pages inside the heap. Apple:
   malloc_zone_pressure_relief(NULL, 0), what the system's own memory pressure handling does. */
#if defined(__GLIBC__)
#include <malloc.h>
static inline void PEPlatformReleaseFreeMallocMemory(void) { (void)malloc_trim(0); }
#elif defined(__APPLE__)
#if __has_include(<malloc/malloc.h>)
#include <malloc/malloc.h>
#else
/* malloc/malloc.h's prototype, for header sets without that file (the Apple compile check's). */
typedef struct _malloc_zone_t malloc_zone_t;
size_t malloc_zone_pressure_relief(malloc_zone_t *zone, size_t goal);
#endif
static inline void PEPlatformReleaseFreeMallocMemory(void) { (void)malloc_zone_pressure_relief(NULL, 0); }
#else
static inline void PEPlatformReleaseFreeMallocMemory(void) {}
#endif

/* How JavaScriptCore makes running JS take a trap (its watchdog: the execution time and heap growth
   limits). Its default mode signals the thread running JS and throws away the optimised code found
   running there, which must tier up again; the heap growth limit checks a long entry every 10-160
   ms, and JavaScriptCore's watchdog timers are never cancelled (a stale one traps a later entry).
   Measured (patchbench, JS calling JS-defined methods in 80 ms loops): 101 of 270 samples more
   than 20x a plain JS call (up to 80x: the loop recompiled into 2.4-2.8 KB of slower code instead
   of 768 bytes, or running in a lower tier meanwhile); none with the heap growth limit off.
   JavaScriptCore's other mode, polling traps (a check at the loop heads and entries of optimised
   code), never throws code away: 0 of 162, at ≈ +0.25 ns per loop iteration (docs/limits.md).
   Linux: the option is read from the environment when JavaScriptCore initialises, so it is set
   before main (PEJavaScriptCoreOptions.c) unless the environment already sets it. Apple: a
   shipping app's framework takes no options from the environment; signal traps stay there. */
#if defined(__linux__)
static inline void PEPlatformChooseJSCTraps(void) { setenv("JSC_usePollingTraps", "true", 0); }
#else
static inline void PEPlatformChooseJSCTraps(void) {}
#endif

#endif
