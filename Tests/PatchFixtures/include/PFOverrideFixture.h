/* PFGreeter: plain methods to override, with and without calling the original. */
#ifndef PF_OVERRIDE_FIXTURE_H
#define PF_OVERRIDE_FIXTURE_H

/* -greet: (unpatched "Hello, <name>"). */
char *pf_greeter_greet(const char *name);
/* -greetTwice: calls [self greet:] from inside the class (unpatched "Hello, n & Hello, n"). */
char *pf_greeter_greet_twice(const char *name);
/* -describeValue:label: (double + object; unpatched "<label>=<value %g>"). */
char *pf_greeter_describe_value(double value, const char *label);
/* -setMood: (void) then -mood (unpatched: the mood set). */
char *pf_greeter_mood_after_setting(const char *mood);
/* -countOf: (NSUInteger length of the string). */
unsigned long pf_greeter_count(const char *text);
/* -format:view:count: (NSString *, id, NSInteger; unpatched "<str>/<class of view>/<count>"). */
char *pf_greeter_format(const char *text, long count);
/* -viewOrNil: (unpatched: returns nil); with nil / with a fresh object: describes the result. */
char *pf_greeter_view_or_nil(int passNil);

#endif
