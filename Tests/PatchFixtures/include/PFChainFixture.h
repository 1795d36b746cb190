/* PFChainLink: a linked list whose -dealloc releases the next link, so releasing the head runs
   every link's -dealloc nested inside the previous one's (as deep as the list is long).
     -value      returns -1 (a script patches it)
     -dealloc    records [self value] (pf_chain_seen), then releases the next link */
#ifndef PF_CHAIN_FIXTURE_H
#define PF_CHAIN_FIXTURE_H

/* A list of `count` links, the head first (+1); each link's next is the one after it. */
void *pf_chain_make(int count);
/* [link value]. */
int pf_chain_value(void *link);
/* The link at `index` (not retained). */
void *pf_chain_link(void *head, int index);
/* What the -deallocs recorded, in order, since the last call (at most 1024 kept), and how many. */
int pf_chain_seen(int *values, int capacity);

#endif
