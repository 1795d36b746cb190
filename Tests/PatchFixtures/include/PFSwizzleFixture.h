/* Order-safe swizzles (PESwizzle.h) set up natively, and RSSwizzle's test classes.

   RSSwizzle's classes (RSSwizzleTests.m), one family per test; F is PFRs1 ... PFRs24:
     F##A : NSObject  -calc:(int)n returns n; -methodReturningBOOL YES; -methodWithArgument:(id);
                      -methodForAlwaysSwizzling, -methodForSwizzlingOncePerClass,
                      -methodForSwizzlingOncePerClassOrSuperClasses (void, empty);
                      -string "ABC"; +sumFloat:(float)f withDouble:(double)d returns @(f + d)
     F##B : A         (implements nothing)
     F##C : B         -calc: returns [super calc:n] * 3; -dealloc logs "C"
     F##D : C, F##D2 : C   (implement nothing)

   Every swizzle returns a handle for pf_tk_remove, or 0 with *error (malloc'd) when refused. */
#ifndef PF_SWIZZLE_FIXTURE_H
#define PF_SWIZZLE_FIXTURE_H

/* -calc: of className: the layer logs "<op><operand>" (e.g. "*11") and returns
   original <op> operand, op one of + - *. */
int pf_swizzle_calc(const char *className, char op, int operand, char **error);
/* A - (void) method without arguments: the layer logs `label`, then calls the original.
   mode: 0 always, 1 once per class, 2 once per class and superclasses (PESwizzleMode) for `key`.
   0 with *error left NULL when the mode said it was done already. */
int pf_swizzle_void(const char *className, const char *selector, int mode, const char *key,
                    const char *label, char **error);
/* -step of a toolkit family class (PFToolkitFixture.h): logs `label`, returns original + ">" + label. */
int pf_swizzle_step(const char *className, const char *label, char **error);
/* +kind (a class method) of a toolkit family class, the same way. */
int pf_swizzle_kind(const char *className, const char *label, char **error);
/* -add:to: of a toolkit family class: the original's result plus `offset`; logs nothing. */
int pf_swizzle_add(const char *className, int offset, char **error);
/* -string: original + suffix. */
int pf_swizzle_string(const char *className, const char *suffix, char **error);
/* +sumFloat:withDouble:: the original's number doubled. */
int pf_swizzle_sum_doubled(const char *className, char **error);

/* Swizzles that must be refused, as RSSwizzle's throwing tests:
   0 a void block for -methodReturningBOOL (return type), 1 a block without the argument for
   -methodWithArgument: (count), 2 ^(info, self, int) for -methodWithArgument:(id) (argument type),
   3 something that is not a block, 4 nil, 5 a method the class doesn't have (-nonexistent),
   6 ^(id self) without the info parameter for -methodForAlwaysSwizzling.
   Returns the error's "<domain> <code>: <message>", or NULL if it was accepted (it is then removed). */
char *pf_swizzle_refused(const char *className, int kind);

/* Native calls on RSSwizzle's classes. */
int pf_rs_calc(void *object, int number);
char *pf_rs_string(void *object);
char *pf_rs_sum(const char *className, float f, double d);

#endif
