/* PFFactory: class methods (through the metaclass), and a selector that exists both as
   a class and an instance method. PFFactorySub inherits them unchanged. */
#ifndef PF_CLASS_METHODS_FIXTURE_H
#define PF_CLASS_METHODS_FIXTURE_H

int pf_factory_twice(const char *className, int x);   /* +twice: (unpatched 2x) */
double pf_factory_half(double x);                      /* +half:  (unpatched x/2) */
char *pf_factory_class_kind(void);                     /* +kind   ("class-kind") */
char *pf_factory_instance_kind(void);                  /* -kind   ("instance-kind") */
/* +tagged: with a fresh PFFactory; the original sets its tag to "orig-called" and returns
   nil. Returns "<same|nil|other> tag=<tag>". */
char *pf_factory_tagged(void);
/* +makeWithName: then -name of the result. */
char *pf_factory_make_named(const char *name);

#endif
