/* PFFailing: errors in every form. -loadNamed:error: reports through NSError ** ("bad"
   fails with PFErrorDomain / 42 / userInfo {reason: "bad name"}); -explode: raises an
   NSException named PFExplosion with the given reason; the risky* methods have known
   native results for checking the fallback after JS throws inside a patch.
   Every function reports *raised = 1 if an NSException reached the native caller. */
#ifndef PF_ERRORS_FIXTURE_H
#define PF_ERRORS_FIXTURE_H
#include "PFStructsFixture.h"

/* Returns the BOOL result; *errorText = "domain/code/reason" (malloc'd) if an error was set, else NULL. */
int pf_failing_load(const char *name, char **errorText, int *raised);
/* -loadNamed:error: with a NULL error pointer. */
int pf_failing_load_without_error_pointer(const char *name, int *raised);
int pf_failing_risky_value(int *raised);          /* -riskyValue   (7) */
char *pf_failing_risky_name(int *raised);         /* -riskyName    ("safe"), described */
PFRectC pf_failing_risky_rect(int *raised);       /* -riskyRect    ({1, 2, 3, 4}) */
double pf_failing_risky_double(int *raised);      /* -riskyDouble  (2.5) */
/* -riskyVoid then -voidLog: "orig-void" when the original ran. */
char *pf_failing_risky_void(int *raised);

#endif
