/* Module fan-out internals shared by its three files:
   PEModuleSpecs.m     lifecycle selectors taken from a protocol or a list (no shared state);
   PEModuleRegistry.m  the registered modules, under a lock that never runs a module's code;
   PEModules.m         attachments, the fan-out hook, the public API. */
#ifndef PE_MODULES_INTERNAL_H
#define PE_MODULES_INTERNAL_H
#include "PEInternal.h"
#include "PEModules.h"

/* One lifecycle selector: a template (from a protocol or a list), or attached to a class. The
   fields after `types` are PEModules.m's, read and written under its attachment lock. */
@interface PEModuleMethod : NSObject {
@public
    SEL selector;
    char *types;            /* the protocol's encoding, or NULL */
    uint64_t hook;          /* the fan-out hook; 0 while pending (nobody implements it yet) */
    BOOL added;             /* the method was added to the class for the modules */
    BOOL busy;              /* a thread is hooking it (outside the lock) */
}
- (PEModuleMethod *)copyMethod;
@end

/* Same selector name (GCC's runtime has typed and untyped selectors of one name). */
BOOL PEModuleSameSelector(SEL a, SEL b);
NSError *PEModuleError(PEModulesErrorCode code, NSString *message);
NSString *PEModuleDescribeException(id exception);

/* PEModuleMethod templates, or nil with *error. */
NSArray *PEModuleSpecsFromProtocol(Protocol *protocol, NSError **error);
NSArray *PEModuleSpecsFromNames(NSArray *names, NSError **error);

/* The registry. Module code (-init, -respondsToSelector:, -dealloc) never runs under its lock. */
/* Adds a module class (module nil) or object (class Nil) unless registered already. */
BOOL PEModuleRegistryAdd(Class moduleClass, id module);
/* Removes it; its module is released after the lock is dropped. */
BOOL PEModuleRegistryRemove(Class moduleClass, id module);
/* The registered classes and objects, in registration order. */
NSArray *PEModuleRegistryList(void);
/* The instance made for a registered module class, or nil. */
id PEModuleRegistryInstanceOf(Class moduleClass);
/* The modules a fan-out calls, in registration order, making class modules' instances on first use
   (outside the lock; a class whose -init runs on another thread is waited for, at most a few
   seconds). Failures to make one are added to `failures`. */
NSArray *PEModuleRegistryModulesToCall(NSMutableArray *failures);

#endif
