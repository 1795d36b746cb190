/* PFBlockHost: blocks as parameters and return values (@?), both directions. */
#ifndef PF_BLOCKS_FIXTURE_H
#define PF_BLOCKS_FIXTURE_H

/* Native caller of -transform:with: passing a native block ^(NSString *s, int n) that
   returns "<S uppercased>#<n>". Unpatched, -transform:with: returns s unchanged. */
char *pf_blocks_transform(const char *text);
/* Native caller of -applyProvided: which calls the block returned by -adderProvider
   (unpatched: x + 1). */
int pf_blocks_apply_provided(int x);
/* Calls the block a script handed to -keepIntBlock:, natively, with x. *missing = 1 if none. */
int pf_blocks_call_kept(int x, int *missing);
/* Forgets the kept block. */
void pf_blocks_forget_kept(void);

#endif
