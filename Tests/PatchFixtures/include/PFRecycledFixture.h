/* Objects whose memory is handed to the next object at once: a reproduction, without the
   allocator's luck, of an address freed by one thread's -dealloc and reused by another thread's
   allocation before the engine's per-object cleanup after that -dealloc has run.

   PFRecycled1 ... PFRecycled8 (one per test and route: a slot keeps its route) share one block
   of memory: +alloc places the object in it (NULL from pf_recycled_new while it is taken), and
   -dealloc gives it back as NSObject's -dealloc would free it, without calling NSObject's.
     -add:(int)a to:(int)b   returns a + b
     -dealloc                first sends itself -add:2 to:3 (the hooked object, still alive:
                             its own hooks apply), gives the block back, then, if the newcomer
                             check is armed, runs it: another thread allocates an object of the
                             same class (in the same block: the same address) and sends it
                             -add:1 to:2, before -dealloc
                             returns. */
#ifndef PF_RECYCLED_FIXTURE_H
#define PF_RECYCLED_FIXTURE_H

void *pf_recycled_new(const char *className);

/* Arms the check for the next -dealloc of a PFRecycled object (once). */
void pf_recycled_arm_newcomer_check(void);

/* What the last armed -dealloc saw; each -1 when it did not happen. */
typedef struct PFRecycledReport {
    int duringDealloc;          /* -add:2 to:3 on the dying object, in its own -dealloc */
    int newcomerAdd;            /* -add:1 to:2 on the newcomer, on another thread */
    int sameAddress;            /* 1: the newcomer got the dying object's address */
    int newcomerFinished;       /* 1: the other thread finished within 10 s */
} PFRecycledReport;
PFRecycledReport pf_recycled_report(void);

/* The newcomer made by the last armed check (retained; the caller releases it), or NULL. */
void *pf_recycled_take_newcomer(void);

#endif
