/* Module fan-out (TYModule): the registry of modules and attached delegate classes. The fan-out
   itself is a class-level After hook on each attached (class, selector), so it is one layer of the
   dispatcher and composes with every other hook, JS patch and swizzle on the same selector. */
#include "PEInternal.h"
#include "PEModules.h"
#include "PEHooks.h"
#include "PEAspects.h"
#include "PEBlocks.h"
#include "PEDispatch.h"
#include <pthread.h>
#include <string.h>

NSString *const PEModulesErrorDomain = @"PEModulesErrorDomain";

#pragma mark - Records

/* One registration. */
@interface PEModuleEntry : NSObject {
@public
    Class moduleClass;      /* Nil for an object registration */
    id module;              /* the object, or the class's instance once made; retained */
    BOOL initializing;      /* -init is running (a lifecycle call from inside it must not make another) */
    BOOL failed;            /* -init raised or returned nil: not retried until registered again */
}
@end

@implementation PEModuleEntry
- (void)dealloc {
    [module release];
    [super dealloc];
}
@end

/* One lifecycle selector: a template (from a protocol or a list), or attached to a class. */
@interface PEModuleMethod : NSObject {
@public
    SEL selector;
    char *types;            /* the protocol's encoding, or NULL */
    uint64_t hook;          /* the fan-out hook; 0 while pending (nobody implements it yet) */
    BOOL added;             /* the method was added to the class for the modules */
}
- (PEModuleMethod *)copyMethod;
@end

@implementation PEModuleMethod
- (void)dealloc {
    free(types);
    [super dealloc];
}
- (PEModuleMethod *)copyMethod {
    PEModuleMethod *m = [PEModuleMethod new];
    m->selector = selector;
    m->types = types ? strdup(types) : NULL;
    return m;
}
@end

static BOOL sameSelector(SEL a, SEL b) {
    /* GCC's runtime has typed and untyped selectors of one name: compare names. */
    return a == b || strcmp(sel_getName(a), sel_getName(b)) == 0;
}

/* An attached delegate class. */
@interface PEModuleAttachment : NSObject {
@public
    Class cls;
    NSMutableArray *methods;    /* PEModuleMethod */
}
- (PEModuleMethod *)methodFor:(SEL)selector;
@end

@implementation PEModuleAttachment
- (void)dealloc {
    [methods release];
    [super dealloc];
}
- (PEModuleMethod *)methodFor:(SEL)selector {
    for (PEModuleMethod *m in methods)
        if (sameSelector(m->selector, selector)) return m;
    return nil;
}
@end

/* One attachWhenDelegateIsSetOn: set-up. Its hook block refers to it by identifier only, so a
   block still running after -remove finds nothing instead of a freed record. */
@interface PEModuleSetterRecord : NSObject {
@public
    uint64_t identifier;
    uint64_t hook;
    NSArray *specs;                     /* PEModuleMethod templates */
    NSMutableArray *attachedClasses;    /* classes this set-up attached (not ones attached before) */
}
@end

@implementation PEModuleSetterRecord
- (void)dealloc {
    [specs release];
    [attachedClasses release];
    [super dealloc];
}
@end

#pragma mark - State

/* One recursive lock guards everything below: module -init, -respondsToSelector: and the error
   handler may call back into this file on the same thread. */
static pthread_mutex_t stateLock;
static pthread_once_t stateOnce = PTHREAD_ONCE_INIT;
static NSMutableArray *entries;         /* PEModuleEntry, registration order */
static NSMutableArray *attachments;     /* PEModuleAttachment */
static NSMutableArray *setterRecords;   /* PEModuleSetterRecord */
static void *errorHandler;              /* a copied block, or NULL for NSLog */
static uint64_t lastSetterIdentifier;

static void initState(void) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&stateLock, &attr);
    pthread_mutexattr_destroy(&attr);
    entries = [NSMutableArray new];
    attachments = [NSMutableArray new];
    setterRecords = [NSMutableArray new];
}

static void lockState(void) {
    pthread_once(&stateOnce, initState);
    pthread_mutex_lock(&stateLock);
}

static void unlockState(void) { pthread_mutex_unlock(&stateLock); }

static void report(NSString *message) {
    lockState();
    void *handler = errorHandler ? PEBlockCopy(errorHandler) : NULL;
    unlockState();
    if (!handler) { NSLog(@"PEModules: %@", message); return; }
    @try {
        ((void (^)(NSString *))handler)(message);
    } @catch (id exception) {
        NSLog(@"PEModules: the error handler raised while reporting: %@", message);
    }
    PEBlockRelease(handler);
}

static NSError *makeError(PEModulesErrorCode code, NSString *message) {
    return [NSError errorWithDomain:PEModulesErrorDomain code:code
                           userInfo:[NSDictionary dictionaryWithObject:message forKey:NSLocalizedDescriptionKey]];
}

static NSString *describeException(id exception) {
    char *text = PEExceptionMessage(exception);
    NSString *s = [NSString stringWithUTF8String:text];
    free(text);
    return s;
}

static PEModuleAttachment *findAttachment(Class cls) {
    for (PEModuleAttachment *a in attachments)
        if (a->cls == cls) return a;
    return nil;
}

static PEModuleSetterRecord *findSetterRecord(uint64_t identifier) {
    for (PEModuleSetterRecord *r in setterRecords)
        if (r->identifier == identifier) return r;
    return nil;
}

#pragma mark - The fan-out

/* Modules a fan-out on this thread is calling right now, so a module that is itself an instance of
   an attached class does not fan out again from inside the fan-out. */
#define CALLING_DEPTH 32
static __thread struct { id module; SEL selector; } calling[CALLING_DEPTH];
static __thread unsigned callingDepth;

static BOOL isBeingCalledAsModule(id receiver, SEL selector) {
    for (unsigned i = 0; i < callingDepth && i < CALLING_DEPTH; i++)
        if (calling[i].module == receiver && sameSelector(calling[i].selector, selector)) return YES;
    return NO;
}

/* The nearest class at or above `cls` whose fan-out for `selector` is hooked. Under the lock. */
static Class responsibleClass(Class cls, SEL selector) {
    for (Class k = cls; k; k = class_getSuperclass(k)) {
        PEModuleMethod *m = [findAttachment(k) methodFor:selector];
        if (m && m->hook) return k;
    }
    return Nil;
}

/* The modules to call, in order (+1 array), making class modules' instances on first use.
   Under the lock. */
static NSMutableArray *snapshotModules(NSMutableArray *failures) {
    NSMutableArray *modules = [[NSMutableArray alloc] initWithCapacity:[entries count]];
    for (NSUInteger i = 0; i < [entries count]; i++) {
        PEModuleEntry *e = [entries objectAtIndex:i];
        if (e->moduleClass && !e->module && !e->initializing && !e->failed) {
            [e retain];                 /* -init may unregister its own class */
            e->initializing = YES;
            @try {
                id made = [[e->moduleClass alloc] init];
                if (made) e->module = made;
                else {
                    e->failed = YES;
                    [failures addObject:[NSString stringWithFormat:@"module class %s returned nil from -init",
                                         class_getName(e->moduleClass)]];
                }
            } @catch (id exception) {
                e->failed = YES;
                [failures addObject:[NSString stringWithFormat:@"module class %s raised in -init: %@",
                                     class_getName(e->moduleClass), describeException(exception)]];
            }
            e->initializing = NO;
            [e release];
        }
        if (e->module) [modules addObject:e->module];
    }
    return modules;
}

static BOOL isZero(const void *value, size_t size) {
    const unsigned char *bytes = value;
    for (size_t i = 0; i < size; i++)
        if (bytes[i]) return NO;
    return YES;
}

/* The body of the After hook on (attachedClass, selector). */
static void fanOut(Class attachedClass, SEL selector, id<AspectInfo> info) {
    PEEnsureThreadRegistered();
    id receiver = [info instance];
    if (!receiver || isBeingCalledAsModule(receiver, selector)) return;

    NSMutableArray *failures = [NSMutableArray new];
    NSMutableArray *modules = nil;
    lockState();
    @try {
        if (responsibleClass(object_getClass(receiver), selector) == attachedClass)
            modules = snapshotModules(failures);
    } @finally {
        unlockState();
    }
    for (NSString *failure in failures) report(failure);
    [failures release];
    if (!modules) return;

    NSInvocation *invocation = [info originalInvocation];
    PESlot *slot = PESlotFind(attachedClass, sel_getName(selector));
    const PESignature *sig = slot ? PESlotGetSignature(slot) : NULL;
    if (!sig) { [modules release]; return; }
    unsigned count = PESignatureGetArgumentCount(sig);
    void **args = alloca(sizeof(void *) * count);
    SEL typedSelector = [invocation selector];
    args[1] = &typedSelector;
    for (unsigned i = 2; i < count; i++) {
        size_t size = PETypeGetSize(PESignatureGetArgument(sig, i));
        args[i] = alloca(size < 16 ? 16 : size);
        [invocation getArgument:args[i] atIndex:(NSInteger)i];
    }
    const PEType *returnType = PESignatureGetReturnType(sig);
    size_t returnSize = PETypeGetKind(returnType) == PETypeKindVoid ? 0 : PETypeGetSize(returnType);
    size_t bufferSize = returnSize < 16 ? 16 : returnSize;
    void *moduleResult = returnSize ? alloca(bufferSize) : NULL;
    BOOL decided = YES;
    if (returnSize) {
        void *result = alloca(bufferSize);
        memset(result, 0, bufferSize);
        [invocation getReturnValue:result];
        decided = !isZero(result, returnSize);
    }

    for (id module in modules) {
        if (module == receiver) continue;
        BOOL responds = NO;
        @try {
            responds = [module respondsToSelector:selector];
        } @catch (id exception) {
            report([NSString stringWithFormat:@"module -[%s respondsToSelector:] raised for %s: %@",
                    class_getName(object_getClass(module)), sel_getName(selector), describeException(exception)]);
        }
        if (!responds) continue;
        id target = module;
        args[0] = &target;
        if (moduleResult) memset(moduleResult, 0, bufferSize);
        PEFrame frame = { sig, args, moduleResult };
        char *error = NULL;
        BOOL tracked = callingDepth < CALLING_DEPTH;
        if (tracked) { calling[callingDepth].module = module; calling[callingDepth].selector = selector; }
        callingDepth++;
        bool ok = PEMessageSend(&frame, &error);
        callingDepth--;
        if (!ok) {
            report([NSString stringWithFormat:@"module -[%s %s] raised: %s",
                    class_getName(object_getClass(module)), sel_getName(selector), error ?: "unknown error"]);
            free(error);
            continue;
        }
        if (!decided && !isZero(moduleResult, returnSize)) {
            [invocation setReturnValue:moduleResult];
            decided = YES;
        }
    }
    [modules release];
}

#pragma mark - Attaching

/* Types for adding `selector` to a delegate class: from a registered module that implements it,
   or NULL when none does. Under the lock. */
static const char *moduleTypes(SEL selector) {
    for (PEModuleEntry *e in entries) {
        Method m = NULL;
        if (e->moduleClass) m = class_getInstanceMethod(e->moduleClass, selector);
        else if ([e->module respondsToSelector:selector]) m = class_getInstanceMethod(object_getClass(e->module), selector);
        if (m) return method_getTypeEncoding(m);
    }
    return NULL;
}

/* Hooks the fan-out of one attached selector, or leaves it pending while neither the class nor
   any module implements it. Returns nil, or why it failed. Under the lock. */
static NSString *hookMethod(Class cls, PEModuleMethod *m) {
    const char *name = sel_getName(m->selector);
    if (!class_respondsToSelector(cls, m->selector)) {
        const char *types = NULL;
        @try {
            types = moduleTypes(m->selector);
        } @catch (id exception) {
            return [NSString stringWithFormat:@"cannot attach -[%s %s]: a module raised: %@",
                    class_getName(cls), name, describeException(exception)];
        }
        if (!types) return nil;
        if (m->types) types = m->types;
        char *error = NULL;
        if (!PESlotInstall(cls, name, types, &error)) {
            NSString *message = [NSString stringWithFormat:@"cannot add -[%s %s] for the modules: %s",
                                 class_getName(cls), name, error ?: "refused"];
            free(error);
            return message;
        }
        m->added = YES;
    }
    SEL selector = m->selector;
    void (^after)(id) = ^(id info) { fanOut(cls, selector, info); };
    int code = 0;
    char *error = NULL;
    uint64_t hook = PEHookAdd(cls, NULL, name, PEHookPositionAfter, (void *)after, &code, &error);
    if (!hook) {
        NSString *message = [NSString stringWithFormat:@"cannot attach -[%s %s]: %s",
                             class_getName(cls), name, error ?: "the hook was refused"];
        free(error);
        return message;
    }
    m->hook = hook;
    return nil;
}

/* Retries every pending selector (a module was registered). Under the lock. */
static void hookPendingMethods(NSMutableArray *failures) {
    for (PEModuleAttachment *a in attachments)
        for (PEModuleMethod *m in a->methods)
            if (!m->hook) {
                NSString *failure = hookMethod(a->cls, m);
                if (failure) [failures addObject:failure];
            }
}

/* Attaches `cls` for `specs`; all or nothing for the selectors new to it. When `attached` is given
   and the class was not attached before, the class is added to it. Under the lock. */
static BOOL attachLocked(Class cls, NSArray *specs, NSMutableArray *attached, NSError **error) {
    PEModuleAttachment *a = findAttachment(cls);
    BOOL created = a == nil;
    if (created) {
        a = [PEModuleAttachment new];
        a->cls = cls;
        a->methods = [NSMutableArray new];
        [attachments addObject:a];
        [a release];
    }
    NSMutableArray *fresh = [NSMutableArray array];
    for (PEModuleMethod *spec in specs) {
        if ([a methodFor:spec->selector]) continue;
        PEModuleMethod *m = [spec copyMethod];
        [a->methods addObject:m];
        [fresh addObject:m];
        [m release];
    }
    NSString *failure = nil;
    for (PEModuleMethod *m in fresh)
        if ((failure = hookMethod(cls, m))) break;
    if (failure) {
        for (PEModuleMethod *m in fresh)
            if (m->hook) { PEHookRemove(m->hook); m->hook = 0; }
        [a->methods removeObjectsInArray:fresh];
        if (created) [attachments removeObjectIdenticalTo:a];
        if (error) *error = makeError(PEModulesErrorHookRefused, failure);
        return NO;
    }
    if (created) [attached addObject:cls];
    return YES;
}

static BOOL detachLocked(Class cls) {
    PEModuleAttachment *a = findAttachment(cls);
    if (!a) return NO;
    [a retain];
    [attachments removeObjectIdenticalTo:a];
    for (PEModuleMethod *m in a->methods)
        if (m->hook) { PEHookRemove(m->hook); m->hook = 0; }
    [a release];
    for (PEModuleSetterRecord *r in setterRecords) [r->attachedClasses removeObjectIdenticalTo:cls];
    return YES;
}

static void addProtocolSpecs(Protocol *protocol, NSMutableArray *specs, NSMutableSet *seenProtocols) {
    const char *protocolName = protocol_getName(protocol);
    if (!protocolName || strcmp(protocolName, "NSObject") == 0) return;   /* retain, description... */
    NSString *key = [NSString stringWithUTF8String:protocolName];
    if ([seenProtocols containsObject:key]) return;
    [seenProtocols addObject:key];
    for (int required = 1; required >= 0; required--) {
        unsigned count = 0;
        struct objc_method_description *list = protocol_copyMethodDescriptionList(protocol, (BOOL)required, YES, &count);
        for (unsigned i = 0; i < count; i++) {
            if (!list[i].name) continue;
            BOOL seen = NO;
            for (PEModuleMethod *s in specs) seen = seen || sameSelector(s->selector, list[i].name);
            if (seen) continue;
            PEModuleMethod *m = [PEModuleMethod new];
            m->selector = sel_registerName(sel_getName(list[i].name));
            m->types = list[i].types ? strdup(list[i].types) : NULL;
            [specs addObject:m];
            [m release];
        }
        free(list);
    }
    unsigned adoptedCount = 0;
    Protocol **adopted = protocol_copyProtocolList(protocol, &adoptedCount);
    for (unsigned i = 0; i < adoptedCount; i++) addProtocolSpecs(adopted[i], specs, seenProtocols);
    free(adopted);
}

/* PEModuleMethod templates, or nil with *error. */
static NSArray *specsFromProtocol(Protocol *protocol, NSError **error) {
    if (!protocol) {
        if (error) *error = makeError(PEModulesErrorInvalidArgument, @"no lifecycle protocol was given");
        return nil;
    }
    if (!protocol_getName(protocol)) {
        /* GCC's runtime initialises a protocol when a class adopting it is loaded. */
        if (error) *error = makeError(PEModulesErrorInvalidArgument,
            @"the protocol is not initialised by the runtime (on GCC's runtime, a class adopting it must be loaded)");
        return nil;
    }
    NSMutableArray *specs = [NSMutableArray array];
    addProtocolSpecs(protocol, specs, [NSMutableSet set]);
    if ([specs count] == 0) {
        if (error) *error = makeError(PEModulesErrorInvalidArgument, [NSString stringWithFormat:
            @"protocol %s declares no instance methods this runtime records (GCC's runtime drops optional "
            @"protocol methods: list them with the selectors: variant)", protocol_getName(protocol) ?: "?"]);
        return nil;
    }
    return specs;
}

static NSArray *specsFromNames(NSArray *names, NSError **error) {
    if (![names isKindOfClass:[NSArray class]] || [names count] == 0) {
        if (error) *error = makeError(PEModulesErrorInvalidArgument, @"no lifecycle selectors were given");
        return nil;
    }
    NSMutableArray *specs = [NSMutableArray array];
    for (id name in names) {
        if (![name isKindOfClass:[NSString class]] || [name length] == 0) {
            if (error) *error = makeError(PEModulesErrorInvalidArgument, [NSString stringWithFormat:
                @"lifecycle selectors must be non-empty selector names (strings), not %@", name]);
            return nil;
        }
        SEL selector = sel_registerName([name UTF8String]);
        BOOL seen = NO;
        for (PEModuleMethod *s in specs) seen = seen || sameSelector(s->selector, selector);
        if (seen) continue;
        PEModuleMethod *m = [PEModuleMethod new];
        m->selector = selector;
        [specs addObject:m];
        [m release];
    }
    return specs;
}

static BOOL attachClass(Class cls, NSArray *specs, NSError **error) {
    if (!specs) return NO;
    if (!cls) {
        if (error) *error = makeError(PEModulesErrorInvalidArgument, @"no delegate class was given");
        return NO;
    }
    lockState();
    BOOL ok = NO;
    @try {
        ok = attachLocked(cls, specs, nil, error);
    } @finally {
        unlockState();
    }
    return ok;
}

#pragma mark - Attaching when the delegate is set

@interface PEModulesSetterToken : NSObject <PEModulesToken> {
@public
    uint64_t identifier;
}
@end

@implementation PEModulesSetterToken
- (BOOL)remove {
    PEEnsureThreadRegistered();
    lockState();
    PEModuleSetterRecord *record = [findSetterRecord(identifier) retain];
    if (record) [setterRecords removeObjectIdenticalTo:record];
    unlockState();
    if (!record) return NO;
    PEHookRemove(record->hook);
    lockState();
    NSArray *classes = [record->attachedClasses copy];
    for (Class cls in classes) detachLocked(cls);
    [classes release];
    unlockState();
    [record release];
    return YES;
}
@end

/* The Before hook on the host's setter. */
static void delegateWillBeSet(uint64_t identifier, id delegate) {
    PEEnsureThreadRegistered();
    if (!delegate) return;
    NSError *error = nil;
    BOOL ok = YES;
    Class cls = Nil;
    lockState();
    @try {
        PEModuleSetterRecord *record = findSetterRecord(identifier);
        if (record) {
            /* -class, not the runtime class: a KVO subclass must not become the attached class. */
            cls = [delegate class];
            ok = attachLocked(cls, record->specs, record->attachedClasses, &error);
        }
    } @catch (id exception) {
        ok = NO;
        error = makeError(PEModulesErrorHookRefused, describeException(exception));
    } @finally {
        unlockState();
    }
    if (!ok) report([NSString stringWithFormat:@"cannot attach %s when it became the delegate: %@",
                     cls ? class_getName(cls) : "the delegate", [error localizedDescription]]);
}

static id<PEModulesToken> attachOnSetter(Class host, SEL setter, NSArray *specs, NSError **error) {
    if (!specs) return nil;
    if (!host || !setter) {
        if (error) *error = makeError(PEModulesErrorInvalidArgument, @"attaching on a setter needs a host class and a setter");
        return nil;
    }
    PEModuleSetterRecord *record = [PEModuleSetterRecord new];
    record->specs = [specs retain];
    record->attachedClasses = [NSMutableArray new];
    lockState();
    uint64_t identifier = record->identifier = ++lastSetterIdentifier;
    [setterRecords addObject:record];
    unlockState();
    void (^before)(id, id) = ^(id info, id delegate) { (void)info; delegateWillBeSet(identifier, delegate); };
    int code = 0;
    char *message = NULL;
    uint64_t hook = PEHookAdd(host, NULL, sel_getName(setter), PEHookPositionBefore, (void *)before, &code, &message);
    if (!hook) {
        lockState();
        [setterRecords removeObjectIdenticalTo:record];
        unlockState();
        [record release];
        if (error) *error = makeError(code == PEHookErrorDoesNotRespondToSelector ? PEModulesErrorInvalidArgument
                                                                                    : PEModulesErrorHookRefused,
            [NSString stringWithFormat:@"cannot hook -[%s %s]: %s", class_getName(host), sel_getName(setter),
             message ?: "refused"]);
        free(message);
        return nil;
    }
    lockState();
    record->hook = hook;
    unlockState();
    [record release];
    PEModulesSetterToken *token = [[PEModulesSetterToken new] autorelease];
    token->identifier = identifier;
    return token;
}

#pragma mark - Public API

@implementation PEModules

/* Adds an entry for a module class (module nil) or a module object (class Nil) unless it is
   registered already, then hooks methods that only modules implement. */
static BOOL registerEntry(Class moduleClass, id module) {
    PEEnsureThreadRegistered();
    NSMutableArray *failures = [NSMutableArray new];
    BOOL registered = NO;
    lockState();
    @try {
        BOOL known = NO;
        for (PEModuleEntry *e in entries)
            known = known || (moduleClass ? e->moduleClass == moduleClass : (!e->moduleClass && e->module == module));
        if (!known) {
            PEModuleEntry *e = [PEModuleEntry new];
            e->moduleClass = moduleClass;
            e->module = [module retain];
            [entries addObject:e];
            [e release];
            registered = YES;
            hookPendingMethods(failures);
        }
    } @finally {
        unlockState();
    }
    for (NSString *failure in failures) report(failure);
    [failures release];
    return registered;
}

+ (BOOL)registerModuleClass:(Class)moduleClass {
    if (!moduleClass) return NO;
    return registerEntry(moduleClass, nil);
}

+ (BOOL)registerModuleObject:(id)module {
    if (!module) return NO;
    return registerEntry(Nil, module);
}

/* Removes the entry matching; its module is released after the lock is dropped (its -dealloc
   may do anything). */
static BOOL unregisterEntry(Class moduleClass, id module) {
    PEEnsureThreadRegistered();
    PEModuleEntry *removed = nil;
    lockState();
    for (PEModuleEntry *e in entries) {
        if (moduleClass ? e->moduleClass == moduleClass : (!e->moduleClass && e->module == module)) {
            removed = [e retain];
            break;
        }
    }
    if (removed) [entries removeObjectIdenticalTo:removed];
    unlockState();
    [removed release];
    return removed != nil;
}

+ (BOOL)unregisterModuleClass:(Class)moduleClass {
    return moduleClass ? unregisterEntry(moduleClass, nil) : NO;
}

+ (BOOL)unregisterModuleObject:(id)module {
    return module ? unregisterEntry(Nil, module) : NO;
}

+ (NSArray *)registeredModules {
    PEEnsureThreadRegistered();
    NSMutableArray *list = [NSMutableArray array];
    lockState();
    for (PEModuleEntry *e in entries) [list addObject:e->moduleClass ? (id)e->moduleClass : e->module];
    unlockState();
    return list;
}

+ (id)instanceOfModuleClass:(Class)moduleClass {
    PEEnsureThreadRegistered();
    id instance = nil;
    lockState();
    for (PEModuleEntry *e in entries)
        if (moduleClass && e->moduleClass == moduleClass) instance = [e->module retain];
    unlockState();
    return [instance autorelease];
}

+ (NSArray *)selectorNamesOfProtocol:(Protocol *)protocol {
    PEEnsureThreadRegistered();
    NSMutableArray *names = [NSMutableArray array];
    for (PEModuleMethod *m in specsFromProtocol(protocol, NULL))
        [names addObject:[NSString stringWithUTF8String:sel_getName(m->selector)]];
    return names;
}

+ (BOOL)attachToClass:(Class)delegateClass protocol:(Protocol *)protocol error:(NSError **)error {
    PEEnsureThreadRegistered();
    return attachClass(delegateClass, specsFromProtocol(protocol, error), error);
}

+ (BOOL)attachToClass:(Class)delegateClass selectors:(NSArray *)selectorNames error:(NSError **)error {
    PEEnsureThreadRegistered();
    return attachClass(delegateClass, specsFromNames(selectorNames, error), error);
}

+ (BOOL)detachFromClass:(Class)delegateClass {
    if (!delegateClass) return NO;
    PEEnsureThreadRegistered();
    lockState();
    BOOL detached = detachLocked(delegateClass);
    unlockState();
    return detached;
}

+ (BOOL)isAttachedToClass:(Class)delegateClass selector:(SEL)selector {
    if (!delegateClass || !selector) return NO;
    PEEnsureThreadRegistered();
    lockState();
    PEModuleMethod *m = [findAttachment(delegateClass) methodFor:selector];
    BOOL attached = m && m->hook;
    unlockState();
    return attached;
}

+ (id<PEModulesToken>)attachWhenDelegateIsSetOn:(Class)host selector:(SEL)setter
                                       protocol:(Protocol *)protocol error:(NSError **)error {
    PEEnsureThreadRegistered();
    return attachOnSetter(host, setter, specsFromProtocol(protocol, error), error);
}

+ (id<PEModulesToken>)attachWhenDelegateIsSetOn:(Class)host selector:(SEL)setter
                                      selectors:(NSArray *)selectorNames error:(NSError **)error {
    PEEnsureThreadRegistered();
    return attachOnSetter(host, setter, specsFromNames(selectorNames, error), error);
}

+ (void)setErrorHandler:(void (^)(NSString *message))handler {
    PEEnsureThreadRegistered();
    void *copy = handler ? PEBlockCopy((void *)handler) : NULL;
    lockState();
    void *previous = errorHandler;
    errorHandler = copy;
    unlockState();
    if (previous) PEBlockRelease(previous);
}

@end
