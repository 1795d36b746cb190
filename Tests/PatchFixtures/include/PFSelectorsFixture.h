/* PFSelectors: selector shapes for the JS naming rules ('_' → ':', '__' → '_', a
   trailing ':' when there are more arguments than colons).
     -joinA:b:c:         "a+b+c"            JS joinA_b_c(a, b, c)
     -with_underscore_:  "orig:<n>"         JS with__underscore__(n)
     -two_parts_:more_:  "orig:<a>,<b>"     JS two__parts___more__(a, b)
     -noArgs             "none"             JS noArgs()
     -single:            x + 100            JS single(x)
     +classJoin:with:    "a&b"              JS PFSelectors.classJoin_with(a, b) */
#ifndef PF_SELECTORS_FIXTURE_H
#define PF_SELECTORS_FIXTURE_H

char *pf_selectors_join(const char *a, const char *b, const char *c);
char *pf_selectors_with_underscore(int n);
char *pf_selectors_two_parts(int a, int b);
char *pf_selectors_no_args(void);
int pf_selectors_single(int x);
char *pf_selectors_class_join(const char *a, const char *b);

#endif
