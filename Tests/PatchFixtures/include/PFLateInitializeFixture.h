/* PFLateInitialize: a class whose +initialize runs app code that calls into patches, for a class
   a replay looks up first in the process (VMReplayTests). Its +initialize (once per process, on
   the thread that first sends the class a message: `require` does) calls -[PFAccumulator mix:3]
   on an accumulator with objectId 9 and the block kept by -[PFBlockHost keepIntBlock:] with 4,
   natively, and records both results. */
#ifndef PF_LATE_INITIALIZE_FIXTURE_H
#define PF_LATE_INITIALIZE_FIXTURE_H

/* 1 once +initialize has recorded its results. */
int pf_late_initialize_done(void);
/* What +initialize's -mix:3 returned. */
int pf_late_initialize_mixed(void);
/* What the kept block returned for 4 (-1 if there was none). */
int pf_late_initialize_block_result(void);

#endif
