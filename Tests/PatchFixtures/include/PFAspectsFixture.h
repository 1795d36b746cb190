/* Hooks through the Aspects-compatible API (PEAspects.h), set up and called natively. Every hook
   block logs to the toolkit log (PFToolkitFixture.h); `kind` picks the block. Returns a handle for
   pf_tk_remove, or 0 with *error = "<Aspects error code>: <message>" (malloc'd) when refused. */
#ifndef PF_ASPECTS_FIXTURE_H
#define PF_ASPECTS_FIXTURE_H

typedef enum PFHookKind {
    /* ^(id<AspectInfo> info): logs the label. Fits any method. */
    PFHookLog = 0,
    /* Logs "label(<description of info.arguments>)". */
    PFHookLogArguments = 1,
    /* Logs "label:<class of info.instance>:<selector of originalInvocation>:<same|other>" (whether
       the invocation's target is info.instance). */
    PFHookLogInfo = 2,
    /* Instead: logs the label, then [info.originalInvocation invoke]. */
    PFHookInvoke = 3,
    /* Instead: logs "label=<description of [info invokeOriginal]>". */
    PFHookInvokeOriginal = 4,
    /* Instead, for -add:to:: invokes the original invocation, multiplies its int result by ten with
       getReturnValue:/setReturnValue:, logs "label=<result>". */
    PFHookAddTimesTen = 5,
    /* Instead, for -add:to:: a block ^int(id info, int a, int b) returning a * b (logs the label). */
    PFHookAddReturnsProduct = 6,
    /* For -add:to:: ^(id info, int a), fewer arguments than the method; logs "label(a)". */
    PFHookAddFirstArgument = 7,
    /* Instead, for a method returning an object: sets the return value to the label (an NSString). */
    PFHookSetLabel = 8,
    /* Counts calls (pf_hook_counter), logs nothing. */
    PFHookCount = 9,
    /* Instead: counts calls, then invokes the original invocation; logs nothing. */
    PFHookCountInvoke = 10,
    /* For -runBlock:: ^(id info, void (^block)(void)) logging the label and calling the block. */
    PFHookCallBlockArgument = 11,
    /* For -describe:number:ratio:flag:: ^(id info, id o, int n, double r, BOOL f) logging
       "label(<o> <n> <r> <f>)". */
    PFHookLogAllArguments = 12,
    /* Raises an NSException named "PFHookFailure" with the label as its reason. */
    PFHookRaise = 13,
    /* Instead, for -rect: sets the return value to {1, 2, 3, 4}. */
    PFHookSetRect = 14,
    /* Before, for -add:to:: doubles the first argument with getArgument:/setArgument: on the
       original invocation (the original then adds 2a + b); logs the label. */
    PFHookDoubleFirstArgument = 15,
    /* After, for -add:to:: multiplies the result by ten with getReturnValue:/setReturnValue:;
       logs "label=<result>". */
    PFHookResultTimesTen = 16,
    /* After, for -isEven:: sets the result to the opposite BOOL; logs the label. */
    PFHookFlipBool = 17,
    /* After, for -negate:: sets the (signed char) result to -100; logs the label. */
    PFHookSetCharMinus100 = 18,
    /* Keeps (retains) the info object for pf_hook_kept_info_report, dropping the one kept before;
       logs the label. */
    PFHookKeepInfo = 19,
    /* Before, for -negate:: sets the (signed char) argument to 7 with setArgument:; logs the label. */
    PFHookSetCharArgument7 = 27,
    /* Refused kinds: something that isn't a block (an NSObject), nil, a hand-made block without
       a signature, ^(id info, NSString *a) for an int argument, ^(id info, int a, int b, int c)
       (more arguments than -add:to:), ^double(id info) as an Instead of an int method,
       ^(int notInfo). */
    PFHookNotABlock = 20,
    PFHookNil = 21,
    PFHookNoSignature = 22,
    PFHookWrongArgumentType = 23,
    PFHookTooManyArguments = 24,
    PFHookWrongReturnType = 25,
    PFHookInfoNotAnObject = 26,
} PFHookKind;

/* [cls aspect_hookSelector:...] (every instance of className). */
int pf_hook_class(const char *className, const char *selector, int options, const char *label,
                  int kind, char **error);
/* [object aspect_hookSelector:...] (only that object). */
int pf_hook_object(void *object, const char *selector, int options, const char *label,
                   int kind, char **error);
/* A class method of className: via 0 = [object_getClass(cls) aspect_hookSelector:...] (what Aspects
   users write), via 1 = PEHookAdd(metaclass, NULL, ...) (the C API), via 2 = an instance hook on the
   class object itself (PEHookAdd(NULL, cls, ...)): only calls with that exact class as receiver. */
int pf_hook_class_method(const char *className, const char *selector, int options, const char *label,
                         int kind, int via, char **error);

/* What the info object kept by the last PFHookKeepInfo hook answers now that its call has
   returned: "<same|other>:<invocation>" where same/other compares [info instance] with `object`,
   and <invocation> is "usable" or the reason [[info originalInvocation] target] raised.
   NULL when no info is kept. Drops the kept info. */
char *pf_hook_kept_info_report(void *object);

/* Calls of PFHookCount / PFHookCountInvoke hooks so far (atomic). */
long pf_hook_counter(void);

#endif
