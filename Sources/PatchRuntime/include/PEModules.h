/* AppDelegate module fan-out (TYModule / CXAppDelegate) as a layer of PatchEngine's dispatcher.
   Objective-C only.

   Modules (classes or objects) are registered once; a delegate class is attached for a lifecycle
   protocol (or a list of selectors). From then on every lifecycle call on an instance of that class
   runs the delegate's own implementation and then every registered module that responds to the
   selector, in registration order, with the same arguments.

   How it composes: the fan-out is a class-level After hook (PEHooks.h) on the delegate class, so
   it is one layer of the dispatcher's pipeline, not a competing swizzle:
     Before hooks -> Instead hooks, or [JS patch -> swizzle layers -> the delegate's implementation]
     -> After hooks in registration order, the fan-out being one of them.
   A JS patch or a swizzle of the delegate's method therefore changes what "the delegate's own
   implementation" is; an Instead hook replaces it; the modules still run. Removing any other hook,
   patch or swizzle leaves the fan-out working, and detaching leaves all of them intact.

   Results (the rule for combining return values):
   - void: nothing to combine.
   - Every other return type, BOOL included: the first non-zero result in call order, the delegate
     first, then the modules in registration order; zero (NO, nil, 0) when every result is zero.
     For BOOL that is "YES if the delegate or any module returned YES". Lifecycle BOOLs mean
     "handled" (application:openURL:options:, continueUserActivity:, the launch methods' "can
     handle the launch URL"): a module that handles a URL the delegate does not know must be able
     to say so, and a module that does not care about a URL simply returns NO. Every responding
     module still receives the call after a YES: modules observe the whole lifecycle, as in TYModule.
     The delegate's zero never hides a module's answer, so when the delegate does not implement
     the method at all, the first module that returns something non-zero decides. (Veto-style
     BOOLs, where NO should win, are not served by this rule: implement them in the delegate and
     leave them out of the attached selectors.)

   Which attachment fans out: for a call on an object of class X, the attachment of the nearest class
   at or above X that is attached for that selector. Attachments of its superclasses stay silent
   during that call, so a subclass's [super ...] call, or an inherited implementation reached through
   the subclass, never fans out twice. (A call that skips the nearest attached class entirely, such
   as a subclass override that does not call super, does not fan out.)

   Methods the delegate lacks: if the delegate class (with its superclasses) does not implement a
   lifecycle method but a registered module does, the method is added to the delegate class (types
   from the protocol, else from the module's method), so callers that check respondsToSelector:
   reach the modules; the delegate's part of such a call does nothing and returns zero. A method is
   added only once some registered module responds to it (UIKit changes behaviour for optional
   methods the delegate answers, e.g. which openURL variant it calls), also when that module is
   registered after attaching. The Objective-C runtime cannot remove methods: after detaching or
   unregistering, an added method stays and returns zero.

   Protocols: the selectors are the instance methods the protocol declares, required and optional,
   and those of the protocols it adopts except <NSObject>. GCC's runtime (used on Linux) does not
   record optional protocol methods: there, list them with the selectors: variants. It also
   initialises a protocol only once a class adopting it is loaded (the app delegate class does).

   Modules: a registered class is instantiated once with alloc/init, lazily, by the first lifecycle
   call after it was registered, and its instance is released when the class is unregistered. A
   registered object is retained until unregistered. A module that raises an exception is reported
   to the error handler; the other modules still run. A module that is itself an instance of an
   attached class receives the call once: its own fan-out is not run again from inside the fan-out.

   Thread safety: registration, attaching and detaching may happen on any thread, also while
   lifecycle calls run; a call in flight uses the modules registered when its fan-out started.
   No module code (-init, -respondsToSelector:, -dealloc), +initialize or error handler runs while
   PEModules holds a lock, so a module may use PEModules from any thread at any time, also from its
   -init. A lifecycle call on another thread that needs a module class whose -init is still
   running waits for it, at most 10 s (then that call skips the module and reports it). */
#ifndef PE_MODULES_H
#define PE_MODULES_H
#ifdef __OBJC__
#import <Foundation/Foundation.h>

extern NSString *const PEModulesErrorDomain;

typedef NS_ENUM(NSInteger, PEModulesErrorCode) {
    /* A nil or unusable class, protocol, selector list or module. */
    PEModulesErrorInvalidArgument = 1,
    /* The dispatcher refused to hook a selector; the message says which and why. */
    PEModulesErrorHookRefused = 2,
};

/* Returned by attachWhenDelegateIsSetOn:...: -remove takes the setter hook out and detaches every
   delegate class it attached (YES once, NO afterwards). */
@protocol PEModulesToken <NSObject>
- (BOOL)remove;
@end

@interface PEModules : NSObject

/* Registers a module class, instantiated (alloc/init) at the first lifecycle call. NO when nil or
   already registered. */
+ (BOOL)registerModuleClass:(Class)moduleClass;
/* Registers a module object (retained). A class object passed here receives the calls as class
   methods, as TYModule does for classes. NO when nil or already registered. */
+ (BOOL)registerModuleObject:(id)module;
/* NO when it was not registered. Releases the class's instance / the object. */
+ (BOOL)unregisterModuleClass:(Class)moduleClass;
+ (BOOL)unregisterModuleObject:(id)module;
/* What is registered, in order: the class for a class registration, else the object. */
+ (NSArray *)registeredModules;
/* The instance made for a registered module class, or nil if none was made yet. */
+ (id)instanceOfModuleClass:(Class)moduleClass;

/* The lifecycle selector names `protocol` gives on this runtime (see "Protocols" above). */
+ (NSArray *)selectorNamesOfProtocol:(Protocol *)protocol;

/* Attaches `delegateClass` for every selector of `protocol` (resp. the given selector names).
   Attaching again adds selectors not attached yet; attaching twice is harmless. On failure
   nothing new is attached and *error says which selector was refused and why. */
+ (BOOL)attachToClass:(Class)delegateClass protocol:(Protocol *)protocol error:(NSError **)error;
+ (BOOL)attachToClass:(Class)delegateClass selectors:(NSArray *)selectorNames error:(NSError **)error;
/* Removes the fan-out from `delegateClass` (other hooks, patches and swizzles stay). NO when it was
   not attached. */
+ (BOOL)detachFromClass:(Class)delegateClass;
/* Whether calls of `selector` on instances of `delegateClass` currently fan out. */
+ (BOOL)isAttachedToClass:(Class)delegateClass selector:(SEL)selector;

/* TYModule's set-up: a Before hook on `setter` (e.g. -[UIApplication setDelegate:]) of `host`
   attaches the class of the delegate being set, before the setter runs (UIKit caches which
   delegate methods respond while setting the delegate, so added methods must exist by then).
   A delegate set before this call is not seen: attach its class with attachToClass:. nil with
   *error when the host does not respond to the setter or the setter takes no object. */
+ (id<PEModulesToken>)attachWhenDelegateIsSetOn:(Class)host selector:(SEL)setter
                                       protocol:(Protocol *)protocol error:(NSError **)error;
+ (id<PEModulesToken>)attachWhenDelegateIsSetOn:(Class)host selector:(SEL)setter
                                      selectors:(NSArray *)selectorNames error:(NSError **)error;

/* Receives problems found outside any caller's reach (a module raising or failing to initialise,
   a late attach refused). The block is copied; nil restores the default, NSLog. */
+ (void)setErrorHandler:(void (^)(NSString *message))handler;

@end

#endif
#endif
