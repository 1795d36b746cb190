/* PFProbe: a thread-safe log scripts write to from callbacks that run later or on other
   threads: require('PFProbe').record('tag') appends "tag@main" or "tag@bg" (which
   thread ran it, by GNUstep's notion of the main thread).
   PFWorker: methods that scripts patch to use the dispatch helpers and
   performSelectorInOC; called natively from any thread by pf_worker_*.
   PFDisposable (PFDisposable.m): its -dealloc records "native-dealloc"; create it with
   pf_new and release it with pf_release. */
#ifndef PF_PROBE_FIXTURE_H
#define PF_PROBE_FIXTURE_H

void pf_probe_reset(void);
/* The entries recorded so far, joined by ",". */
char *pf_probe_entries(void);
int pf_probe_count(void);
/* Records from native code (same format). */
void pf_probe_record(const char *tag);
/* +[PFProbe runHook] calls `hook` (NULL: nothing): native code of the test's own, run from
   inside a script. */
void pf_probe_set_hook(void (*hook)(void));

/* -[PFWorker work] on a new worker (unpatched: records "native-work"). */
void pf_worker_work(void);
/* -[PFWorker compute:] (unpatched: returns x). -baseValue: returns x * 10. */
int pf_worker_compute(int x);

#endif
