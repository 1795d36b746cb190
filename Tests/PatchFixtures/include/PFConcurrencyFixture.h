/* PFAccumulator (after JSPatch's multithread test): each object has an objectId and a
   list of values that starts with the sentinel -1. -addValue: (NSNumber *) drops the
   sentinel on first use and appends; -addValueIndirect: does nothing natively (scripts
   patch it to call -addValue:). -mix: (int) returns objectId * 100000 + x natively.
   Call these from any thread. */
#ifndef PF_CONCURRENCY_FIXTURE_H
#define PF_CONCURRENCY_FIXTURE_H

void *pf_accumulator_new(int objectId);           /* retained (+1); pf_release it */
void pf_accumulator_add(void *accumulator, int value);
void pf_accumulator_add_indirect(void *accumulator, int value);
/* [accumulator mix:x]; -2 if it raised. */
int pf_accumulator_mix(void *accumulator, int x);
int pf_accumulator_count(void *accumulator);
/* 1 if every value equals `expected`. */
int pf_accumulator_all_equal(void *accumulator, int expected);
/* The values joined by "," (for failure messages). */
char *pf_accumulator_values(void *accumulator);

#endif
