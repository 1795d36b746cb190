/* What the toolkit fixtures share: a log of which layers ran, in order, and the table of live
   hook and swizzle tokens. Plain C for Swift.

   Every layer and every fixture method appends an entry to one process-wide log as it runs;
   pf_tk_log_take() returns the entries joined by single spaces and clears the log. Scripts
   append with require('PFToolkitLog').append('entry').

   Class families for the hook, swizzle and composition tests (PFToolkitFamilies.m), one per
   test so layers left by another test can't interfere; F is PFTk1 ... PFTk160:
     F##Base : NSObject
       -step                 logs "Base", returns @"base"
       -add:(int)a to:(int)b logs "add", returns a + b
       -isEven:(int)n        logs "isEven", returns (BOOL)(n is even)
       -negate:(signed char)c   logs "negate", returns -c
       -fail                 logs "fail", raises an NSException named "PFTkFailure"
       -ping                 logs "ping"
       -describe:(id)o number:(int)n ratio:(double)r flag:(BOOL)f   logs "describe", returns
                             the description of @[o ?: null, n, r, f]
       -ratio 1.5 (double), -big 99 (long long), -rect {100, 100, 100, 100} (four doubles)
       -runBlock:(void (^)(void))b   logs "runBlock", calls b
       -string / -setString: (copy; the setter logs "setString")
       +kind                 logs "+Base", returns @"base"
       -dealloc              logs "dealloc"
     F##Mid : Base   -step logs "Mid", returns [super step] + ">mid";  +kind logs "+Mid", [super kind] + ">mid"
     F##Leaf : Mid   (implements nothing)
     F##Deep : Leaf  -step logs "Deep", returns [super step] + ">deep"
     F##Sib : Base   (implements nothing: a sibling of Mid)
     F##Forwarder : NSObject   -test logs "test"; its own -forwardInvocation: answers
                               -nonExistingSelector by logging "customForward" */
#ifndef PF_TOOLKIT_FIXTURE_H
#define PF_TOOLKIT_FIXTURE_H

/* The log so far ("" when empty), cleared. */
char *pf_tk_log_take(void);
void pf_tk_log_clear(void);
/* The family whose objects' deallocations are logged from now on ("PFTk7"). */
void pf_tk_set_current_family(const char *prefix);

/* Sends -remove to a kept hook or swizzle token: 1 (YES), 0 (NO), -1 for an unknown handle. */
int pf_tk_remove(int handle);

/* Calls on family objects, natively. */
int pf_tk_add(void *object, int a, int b);
int pf_tk_is_even(void *object, int n);                /* 1 for YES, 0 for NO */
int pf_tk_negate(void *object, int c);
char *pf_tk_describe(void *object, void *argument, int number, double ratio, int flag);
double pf_tk_ratio(void *object);
long long pf_tk_big(void *object);
char *pf_tk_rect(void *object);                       /* "x y w h" */
void pf_tk_ping(void *object);
/* -runBlock: with a block that logs "block". NULL, or "!Name: reason" if it raised. */
char *pf_tk_run_block(void *object);
/* -setString: natively; NULL, or "!Name: reason". */
char *pf_tk_set_string(void *object, const char *value);
/* Sends a - (void) method without arguments; NULL, or "!Name: reason" if it raised. */
char *pf_tk_send_void(void *object, const char *selector);
/* "class=<-class> isa=<object_getClass>". */
char *pf_tk_class_report(void *object);

/* What other swizzling code does (method_exchangeImplementations, as in Aspects' "other AOP
   framework" test): adds -naive_step to className (logs "naive", calls [self naive_step]) and
   exchanges it with -step; calling it again exchanges them back. */
void pf_tk_naive_exchange_step(const char *className);

/* KVO: an observer of `keyPath` on `object` that logs "kvo:<keyPath>" on every change.
   Returns a handle for pf_tk_unobserve. */
int pf_tk_observe(void *object, const char *keyPath);
void pf_tk_unobserve(int handle);

#endif
