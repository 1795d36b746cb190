/* Module fan-out fixtures (PEModules, TYModule's model), reached from Swift through plain C.

   Lifecycle protocol PFAppLifecycle (<NSObject, PFAppLifecycleBase>), instance methods:
     required  - (BOOL)application:(id)app didFinishLaunchingWithOptions:(NSDictionary *)options
               - (BOOL)application:(id)app openURL:(NSString *)url options:(NSDictionary *)options
               - (NSUInteger)application:(id)app supportedOrientationsForWindow:(NSString *)window
               - (NSString *)applicationRestorationIdentifier:(id)app
     optional  - (void)applicationDidBecomeActive:(id)app
     from PFAppLifecycleBase (required): - (void)applicationWillTerminate:(id)app
   Selector names: "launch", "open", "orientations", "restoration", "active", "terminate" are
   accepted wherever a selector is asked for, as short names of the above.

   Everyone appends to one log ("who:event" or "who:event(argument)"):
     PFAppDelegate           delegate:launch -> YES; delegate:open(url) -> YES iff url starts with "app:";
                             delegate:orientations(window) -> 2 for "main", else 0; delegate:terminate.
                             No restoration, no active.
     PFAppDelegateOverride : PFAppDelegate   override:open(url), then [super ...] (its result).
     PFBareDelegate          bare:terminate only.
   Module classes (instances counted):
     PFLogModule             log:launch -> NO, log:open(url) -> NO, log:terminate
     PFDeepLinkModule        deeplink:open(url) -> YES iff url starts with "deep:";
                             deeplink:orientations(window) -> 8
     PFStateModule           state:restoration -> "state", state:active
     PFThrowingModule        raises NSInternalInconsistencyException "launch failed" in launch;
                             throwing:open(url) -> NO
     PFFailingInitModule     -init raises NSInvalidArgumentException "no init"; would log failing:launch
     PFRecorderModule        objects with a name: <name>:launch -> NO, <name>:open(url) -> NO,
                             <name>:terminate, <name>:restoration -> the name, <name>:description
   PFModulesOptionalOnly: a protocol with one optional method (applicationDidBecomeActive:).
   PFFakeApplication (UIApplication-like host): -setDelegate: (not retained) caches which lifecycle
   methods the delegate responds to, as UIKit does; its lifecycle entry points only call methods
   that responded when the delegate was set. Also -setIdleTimerDisabled:(BOOL), a setter that
   takes no object.
   PFModuleLog: +append:(NSString *) lets scripts write to the log. */
#ifndef PF_MODULES_FIXTURE_H
#define PF_MODULES_FIXTURE_H

/* The log, entries joined by single spaces; reset empties it. */
void pf_modules_log_reset(void);
char *pf_modules_log(void);

/* Creates an empty runtime subclass `name` of `superclassName` (fresh classes keep tests apart:
   methods added for modules cannot be removed). 1 on success, 0 if it exists or the superclass
   does not. */
int pf_modules_make_class(const char *name, const char *superclassName);

/* Registry. Objects are passed as retained pointers from pf_new / pf_modules_recorder_new. */
int pf_modules_register_class(const char *className);
int pf_modules_unregister_class(const char *className);
int pf_modules_register_object(void *object);
int pf_modules_unregister_object(void *object);
/* Unregisters everything registered (tear-down). */
void pf_modules_unregister_all(void);
/* The registered modules described: [class:PFLogModule, <PFRecorderModule>]. */
char *pf_modules_registered(void);
/* The registered modules' names in order: a class's name, a recorder's name, else its class. */
char *pf_modules_registered_names(void);
/* "nil" or the description of the instance made for a registered module class. */
char *pf_modules_instance_of(const char *className);
/* Instances of a module class made so far (-init) and still alive. */
int pf_modules_init_count(const char *className);
int pf_modules_live_count(const char *className);
void *pf_modules_recorder_new(const char *name);      /* retained (+1) */

/* Attaching. NULL on success, else "<code>: <message>" (PEModulesErrorDomain codes). */
char *pf_modules_attach_protocol(const char *className);
/* `selectors`: comma-separated names (short names allowed). */
char *pf_modules_attach_selectors(const char *className, const char *selectors);
/* Attaches with the protocol named `protocolName` (NULL protocol when no such protocol). */
char *pf_modules_attach_named_protocol(const char *className, const char *protocolName);
int pf_modules_detach(const char *className);
int pf_modules_is_attached(const char *className, const char *selector);
/* The selector names PEModules takes from the protocol, comma-separated, sorted. */
char *pf_modules_protocol_selectors(const char *protocolName);
/* attachWhenDelegateIsSetOn: on `hostClassName`'s `setter`; `selectors` NULL uses PFAppLifecycle.
   Returns a retained token, or NULL with *error (malloc'd "<code>: <message>"). */
void *pf_modules_attach_on_setter(const char *hostClassName, const char *setter, const char *selectors, char **error);
/* -remove on the token (1/0); the token stays retained: pf_release it. */
int pf_modules_token_remove(void *token);

/* Module errors go to the log as "error(<message>)" while captured; off restores NSLog. */
void pf_modules_capture_errors(int on);

/* The host. */
void *pf_app_new(void);                               /* retained (+1) */
void pf_app_set_delegate(void *app, void *delegate);
/* The BOOL the host got (0/1), -1 when the delegate did not respond at -setDelegate: time,
   -2 when the call raised. */
int pf_app_launch(void *app);
int pf_app_open_url(void *app, const char *url);
/* 0, -1 (did not respond when set), -2 (raised). */
int pf_app_terminate(void *app);
int pf_app_become_active(void *app);

/* Native calls on a delegate object, as compiled code makes them (with respondsToSelector:
   ignored). BOOLs as 0/1, -2 when the call raised. */
int pf_delegate_launch(void *delegate);
int pf_delegate_open_url(void *delegate, const char *url);
int pf_delegate_terminate(void *delegate);             /* 0, or -2 */
int pf_delegate_become_active(void *delegate);         /* 0, or -2 */
long pf_delegate_orientations(void *delegate, const char *window);   /* -2 when it raised */
char *pf_delegate_restoration(void *delegate);         /* described: nil, "text"; "!..." raised */
/* [delegate description] reaches no module (NSObject's methods are not lifecycle methods). */
char *pf_delegate_description_log(void *delegate);

/* Composition. An Aspects hook on -[className selector] that appends `label` to the log
   (options: Aspects' AspectOptions; an Instead hook leaves the result zero). Retained token
   or NULL. */
void *pf_modules_hook(const char *className, const char *selector, int options, const char *label);
int pf_modules_hook_remove(void *token);
/* A PESwizzle layer on -[className application:openURL:options:] that appends "<label>:in",
   calls the original, appends "<label>:out" and returns the original's result. Retained token
   or NULL. */
void *pf_modules_swizzle_open_url(const char *className, const char *label);
int pf_modules_swizzle_remove(void *token);

/* PFWaitingInitModule: a module class whose -init waits (at most 5 s) while the test acts, then
   logs waiting:terminate from applicationWillTerminate:. Arm before registering it:
   mode 1: -init waits for pf_modules_waiting_init_release();
   mode 2: -init asks [PEModules registeredModules] on a thread of its own and waits for the answer.
   started: 1 once -init has begun (waits at most `seconds`). outcome: 0 -init has not finished,
   1 what it waited for came, -1 it gave up after 5 s. */
void pf_modules_waiting_init_arm(int mode);
int pf_modules_waiting_init_started(double seconds);
void pf_modules_waiting_init_release(void);
int pf_modules_waiting_init_outcome(void);

#endif
