/* PFGate: native calls that stop at a numbered gate until the test opens it, so a test can hold
   threads inside native calls made from JS in a chosen order (the drop-order tracker's tests).
   +pass: signals that the calling thread reached the gate and waits until it is opened (30 s at
   most: -1 then); +pass:within: the same with its own bound in seconds; +open: opens a gate
   (from JS). +armPause: (-1: none) makes the thread's next push stop at a gate. -run: returns -gate natively (scripts patch it to go through +pass:);
   -outer: returns -gate natively (scripts patch it to call -runNested:); -runNested: stops at
   gate + 10 natively (no JS), then sends -run: (native → JS → native on one thread). */
#ifndef PF_LOCK_DROP_FIXTURE_H
#define PF_LOCK_DROP_FIXTURE_H

/* Gates 0..31 closed, nothing reached. */
void pf_gate_reset(void);
/* 1 once a thread has reached `gate` (+pass: or the push pause below), 0 after `seconds`. */
int pf_gate_wait_reached(int gate, double seconds);
void pf_gate_open(int gate);
/* Natively, on this thread: marks `gate` reached and waits until it is opened; 0 after `seconds`. */
int pf_gate_pass(int gate, double seconds);
int pf_gate_run(int gate);      /* [[PFGate new] run:gate] */
int pf_gate_outer(int gate);    /* [[PFGate new] outer:gate] */
/* The drop-order tracker's before-push hook (PELockDropOrderSetBeforePushHook): on a thread that
   called +armPause: with a gate (from JS), the next push stops at that gate. */
void pf_gate_before_push(void);
/* +armPause: natively: this thread's next push stops at `gate` (-1: none). */
void pf_gate_arm_pause(int gate);

#endif
