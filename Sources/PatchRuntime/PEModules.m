/* Module fan-out (TYModule): delegate classes attached for lifecycle selectors, and the fan-out
   itself, a class-level After hook on each attached (class, selector), so it is one layer of the
   dispatcher and composes with every other hook, JS patch and swizzle on the same selector. The
   registered modules are PEModuleRegistry.m's; the selectors come from PEModuleSpecs.m.

   The attachment lock guards the attachments, the setter records and the error handler, and is
   held only to read or change them: hooking (which installs methods, and so may run +initialize),
   -class, -respondsToSelector: and the error handler all run outside it (PEPlatform.h). */
#include "PEModulesInternal.h"
#include "PEHooks.h"
#include "PEHooksInternal.h"
#include "PEAspects.h"
#include "PEBlocks.h"
#include "PEDispatch.h"
#include <pthread.h>
#include <string.h>

#pragma mark - Records

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
        if (PEModuleSameSelector(m->selector, selector)) return m;
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

static pthread_mutex_t attachmentLock = PTHREAD_MUTEX_INITIALIZER;
static NSMutableArray *attachments;     /* PEModuleAttachment */
static NSMutableArray *setterRecords;   /* PEModuleSetterRecord */
static void *errorHandler;              /* a copied block, or NULL for NSLog */
static uint64_t lastSetterIdentifier;

static void lockAttachments(void) {
    pthread_mutex_lock(&attachmentLock);
    if (!attachments) {
        attachments = [NSMutableArray new];
        setterRecords = [NSMutableArray new];
    }
}

static void unlockAttachments(void) { pthread_mutex_unlock(&attachmentLock); }

static void report(NSString *message) {
    lockAttachments();
    void *handler = errorHandler ? PEBlockCopy(errorHandler) : NULL;
    unlockAttachments();
    if (!handler) { NSLog(@"PEModules: %@", message); return; }
    @try {
        ((void (^)(NSString *))handler)(message);
    } @catch (id exception) {
        NSLog(@"PEModules: the error handler raised while reporting: %@", message);
    }
    PEBlockRelease(handler);
}

static void reportAll(NSArray *failures) {
    for (NSString *failure in failures) report(failure);
}

/* Under the lock. */
static PEModuleAttachment *findAttachment(Class cls) {
    for (PEModuleAttachment *a in attachments)
        if (a->cls == cls) return a;
    return nil;
}

/* Under the lock. */
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
        if (calling[i].module == receiver && PEModuleSameSelector(calling[i].selector, selector)) return YES;
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

static BOOL isZero(const void *value, size_t size) {
    const unsigned char *bytes = value;
    for (size_t i = 0; i < size; i++)
        if (bytes[i]) return NO;
    return YES;
}

/* Calls each module after the delegate's part of the call. */
static void callModules(SEL selector, id<AspectInfo> info, id receiver) {
    NSMutableArray *failures = [NSMutableArray array];
    NSArray *modules = PEModuleRegistryModulesToCall(failures);
    reportAll(failures);

    /* The hook's own frame: the call's signature, argument buffers and return buffer, read in
       place (the modules' calls only read the arguments). */
    PEFrame *call = ((PEAspectInfo *)info)->_frame;
    if (!call) return;
    const PESignature *sig = call->signature;
    unsigned count = PESignatureGetArgumentCount(sig);
    void **args = alloca(sizeof(void *) * count);
    for (unsigned i = 1; i < count; i++) args[i] = call->arguments[i];
    const PEType *returnType = PESignatureGetReturnType(sig);
    size_t returnSize = PETypeGetKind(returnType) == PETypeKindVoid || !call->returnValue ? 0 : PETypeGetSize(returnType);
    size_t bufferSize = returnSize < 16 ? 16 : returnSize;
    void *moduleResult = returnSize ? alloca(bufferSize) : NULL;
    BOOL decided = !returnSize || !isZero(call->returnValue, returnSize);

    for (id module in modules) {
        if (module == receiver) continue;
        BOOL responds = NO;
        @try {
            responds = [module respondsToSelector:selector];
        } @catch (id exception) {
            report([NSString stringWithFormat:@"module -[%s respondsToSelector:] raised for %s: %@",
                    class_getName(object_getClass(module)), sel_getName(selector), PEModuleDescribeException(exception)]);
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
            memcpy(call->returnValue, moduleResult, returnSize);
            decided = YES;
        }
    }
}

/* The body of the After hook on (attachedClass, selector). */
static void fanOut(Class attachedClass, SEL selector, id<AspectInfo> info) {
    PEEnsureThreadRegistered();
    id receiver = [info instance];
    if (!receiver || isBeingCalledAsModule(receiver, selector)) return;
    lockAttachments();
    BOOL responsible = responsibleClass(object_getClass(receiver), selector) == attachedClass;
    unlockAttachments();
    if (!responsible) return;
    NSAutoreleasePool *pool = [NSAutoreleasePool new];     /* the caller may have none */
    @try {
        callModules(selector, info, receiver);
    } @finally {
        [pool release];
    }
}

#pragma mark - Attaching

/* Types for adding `selector` to a delegate class: from a registered module that implements it,
   or NULL when none does. Outside the lock (it asks module objects). */
static const char *moduleTypes(SEL selector) {
    for (id registered in PEModuleRegistryList()) {
        Method m = NULL;
        if (class_isMetaClass(object_getClass(registered))) m = class_getInstanceMethod((Class)registered, selector);
        else if ([registered respondsToSelector:selector]) m = class_getInstanceMethod(object_getClass(registered), selector);
        if (m) return method_getTypeEncoding(m);
    }
    return NULL;
}

/* Hooks the fan-out of one attached selector (*hook), or leaves it pending (*hook 0) while neither
   the class nor any module implements it. Returns nil, or why it failed. Outside the lock: adding
   the method and hooking may run +initialize, and the modules are asked what they implement. */
static NSString *hookMethod(Class cls, SEL selector, const char *protocolTypes, uint64_t *hook, BOOL *added) {
    const char *name = sel_getName(selector);
    *hook = 0;
    *added = NO;
    if (!class_respondsToSelector(cls, selector)) {
        const char *types = NULL;
        @try {
            types = moduleTypes(selector);
        } @catch (id exception) {
            return [NSString stringWithFormat:@"cannot attach -[%s %s]: a module raised: %@",
                    class_getName(cls), name, PEModuleDescribeException(exception)];
        }
        if (!types) return nil;
        if (protocolTypes) types = protocolTypes;
        char *error = NULL;
        if (!PESlotInstall(cls, name, types, &error)) {
            NSString *message = [NSString stringWithFormat:@"cannot add -[%s %s] for the modules: %s",
                                 class_getName(cls), name, error ?: "refused"];
            free(error);
            return message;
        }
        *added = YES;
    }
    void (^after)(id) = ^(id info) { fanOut(cls, selector, info); };
    int code = 0;
    char *error = NULL;
    *hook = PEHookAdd(cls, NULL, name, PEHookPositionAfter, (void *)after, &code, &error);
    if (!*hook) {
        NSString *message = [NSString stringWithFormat:@"cannot attach -[%s %s]: %s",
                             class_getName(cls), name, error ?: "the hook was refused"];
        free(error);
        return message;
    }
    return nil;
}

/* Retries every pending selector (a module was registered). Each is marked busy while it is
   hooked outside the lock, so no other thread hooks it too. */
static void hookPendingMethods(NSMutableArray *failures) {
    NSMutableArray *pending = [NSMutableArray array];      /* attachment, method, ... */
    lockAttachments();
    for (PEModuleAttachment *a in attachments)
        for (PEModuleMethod *m in a->methods)
            if (!m->hook && !m->busy) {
                m->busy = YES;
                [pending addObject:a];
                [pending addObject:m];
            }
    unlockAttachments();
    for (NSUInteger i = 0; i + 1 < [pending count]; i += 2) {
        PEModuleAttachment *a = [pending objectAtIndex:i];
        PEModuleMethod *m = [pending objectAtIndex:i + 1];
        uint64_t hook = 0;
        BOOL added = NO;
        NSString *failure = hookMethod(a->cls, m->selector, m->types, &hook, &added);
        lockAttachments();
        BOOL current = findAttachment(a->cls) == a && [a->methods indexOfObjectIdenticalTo:m] != NSNotFound;
        if (current) {
            m->hook = hook;
            m->added = m->added || added;
        }
        m->busy = NO;
        unlockAttachments();
        if (!current && hook) PEHookRemove(hook);       /* detached meanwhile */
        if (failure) [failures addObject:failure];
    }
}

/* Attaches `cls` for `specs`; all or nothing for the selectors new to it. When the class was not
   attached before and `setterIdentifier` names a set-up, the set-up records the class. The new
   selectors are claimed under the lock, hooked outside it, then published. */
static BOOL attachClass(Class cls, NSArray *specs, uint64_t setterIdentifier, NSError **error) {
    lockAttachments();
    PEModuleAttachment *a = findAttachment(cls);
    BOOL created = a == nil;
    if (created) {
        a = [PEModuleAttachment new];
        a->cls = cls;
        a->methods = [NSMutableArray new];
        [attachments addObject:a];
        [a release];
    }
    [a retain];
    NSMutableArray *fresh = [NSMutableArray array];
    for (PEModuleMethod *spec in specs) {
        if ([a methodFor:spec->selector]) continue;
        PEModuleMethod *m = [spec copyMethod];
        m->busy = YES;
        [a->methods addObject:m];
        [fresh addObject:m];
        [m release];
    }
    unlockAttachments();

    NSUInteger count = [fresh count];
    uint64_t *hooks = calloc(count ? count : 1, sizeof(uint64_t));
    BOOL *added = calloc(count ? count : 1, sizeof(BOOL));
    NSString *failure = nil;
    for (NSUInteger i = 0; i < count && !failure; i++) {
        PEModuleMethod *m = [fresh objectAtIndex:i];
        failure = hookMethod(cls, m->selector, m->types, &hooks[i], &added[i]);
    }

    lockAttachments();
    BOOL current = findAttachment(cls) == a;
    BOOL keep = current && !failure;
    if (keep) {
        for (NSUInteger i = 0; i < count; i++) {
            PEModuleMethod *m = [fresh objectAtIndex:i];
            m->hook = hooks[i];
            m->added = added[i];
            m->busy = NO;
        }
        PEModuleSetterRecord *record = setterIdentifier ? findSetterRecord(setterIdentifier) : nil;
        if (created && record) [record->attachedClasses addObject:cls];
    } else {
        [a->methods removeObjectsInArray:fresh];
        if (created && current && [a->methods count] == 0) [attachments removeObjectIdenticalTo:a];
    }
    unlockAttachments();
    if (!keep)
        for (NSUInteger i = 0; i < count; i++)
            if (hooks[i]) PEHookRemove(hooks[i]);
    free(hooks);
    free(added);
    [a release];
    if (failure && error) *error = PEModuleError(PEModulesErrorHookRefused, failure);
    return failure == nil;
}

static BOOL detachClass(Class cls) {
    NSMutableArray *hooks = [NSMutableArray array];
    lockAttachments();
    PEModuleAttachment *a = [findAttachment(cls) retain];
    if (a) {
        [attachments removeObjectIdenticalTo:a];
        for (PEModuleMethod *m in a->methods)
            if (m->hook) { [hooks addObject:[NSNumber numberWithUnsignedLongLong:m->hook]]; m->hook = 0; }
        for (PEModuleSetterRecord *r in setterRecords) [r->attachedClasses removeObjectIdenticalTo:cls];
    }
    unlockAttachments();
    for (NSNumber *hook in hooks) PEHookRemove([hook unsignedLongLongValue]);
    [a release];
    return a != nil;
}

static BOOL attachNow(Class cls, NSArray *specs, NSError **error) {
    if (!specs) return NO;
    if (!cls) {
        if (error) *error = PEModuleError(PEModulesErrorInvalidArgument, @"no delegate class was given");
        return NO;
    }
    return attachClass(cls, specs, 0, error);
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
    lockAttachments();
    PEModuleSetterRecord *record = [findSetterRecord(identifier) retain];
    if (record) [setterRecords removeObjectIdenticalTo:record];
    NSArray *classes = record ? [record->attachedClasses copy] : nil;
    unlockAttachments();
    if (!record) return NO;
    PEHookRemove(record->hook);
    for (Class cls in classes) detachClass(cls);
    [classes release];
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
    @try {
        lockAttachments();
        PEModuleSetterRecord *record = findSetterRecord(identifier);
        NSArray *specs = record ? [record->specs retain] : nil;
        unlockAttachments();
        if (specs) {
            /* -class, not the runtime class: a KVO subclass must not become the attached class. */
            cls = [delegate class];
            ok = attachClass(cls, specs, identifier, &error);
            [specs release];
        }
    } @catch (id exception) {
        ok = NO;
        error = PEModuleError(PEModulesErrorHookRefused, PEModuleDescribeException(exception));
    }
    if (!ok) report([NSString stringWithFormat:@"cannot attach %s when it became the delegate: %@",
                     cls ? class_getName(cls) : "the delegate", [error localizedDescription]]);
}

static id<PEModulesToken> attachOnSetter(Class host, SEL setter, NSArray *specs, NSError **error) {
    if (!specs) return nil;
    if (!host || !setter) {
        if (error) *error = PEModuleError(PEModulesErrorInvalidArgument, @"attaching on a setter needs a host class and a setter");
        return nil;
    }
    PEModuleSetterRecord *record = [PEModuleSetterRecord new];
    record->specs = [specs retain];
    record->attachedClasses = [NSMutableArray new];
    lockAttachments();
    uint64_t identifier = record->identifier = ++lastSetterIdentifier;
    [setterRecords addObject:record];
    unlockAttachments();
    void (^before)(id, id) = ^(id info, id delegate) { (void)info; delegateWillBeSet(identifier, delegate); };
    int code = 0;
    char *message = NULL;
    uint64_t hook = PEHookAdd(host, NULL, sel_getName(setter), PEHookPositionBefore, (void *)before, &code, &message);
    if (!hook) {
        lockAttachments();
        [setterRecords removeObjectIdenticalTo:record];
        unlockAttachments();
        [record release];
        if (error) *error = PEModuleError(code == PEHookErrorDoesNotRespondToSelector ? PEModulesErrorInvalidArgument
                                                                                       : PEModulesErrorHookRefused,
            [NSString stringWithFormat:@"cannot hook -[%s %s]: %s", class_getName(host), sel_getName(setter),
             message ?: "refused"]);
        free(message);
        return nil;
    }
    lockAttachments();
    record->hook = hook;
    unlockAttachments();
    [record release];
    PEModulesSetterToken *token = [[PEModulesSetterToken new] autorelease];
    token->identifier = identifier;
    return token;
}

#pragma mark - Public API

@implementation PEModules

/* Registers a module, then hooks methods that only modules implement. */
static BOOL registerEntry(Class moduleClass, id module) {
    PEEnsureThreadRegistered();
    if (!PEModuleRegistryAdd(moduleClass, module)) return NO;
    NSMutableArray *failures = [NSMutableArray array];
    hookPendingMethods(failures);
    reportAll(failures);
    return YES;
}

+ (BOOL)registerModuleClass:(Class)moduleClass {
    if (!moduleClass) return NO;
    return registerEntry(moduleClass, nil);
}

+ (BOOL)registerModuleObject:(id)module {
    if (!module) return NO;
    return registerEntry(Nil, module);
}

+ (BOOL)unregisterModuleClass:(Class)moduleClass {
    if (!moduleClass) return NO;
    PEEnsureThreadRegistered();
    return PEModuleRegistryRemove(moduleClass, nil);
}

+ (BOOL)unregisterModuleObject:(id)module {
    if (!module) return NO;
    PEEnsureThreadRegistered();
    return PEModuleRegistryRemove(Nil, module);
}

+ (NSArray *)registeredModules {
    PEEnsureThreadRegistered();
    return PEModuleRegistryList();
}

+ (id)instanceOfModuleClass:(Class)moduleClass {
    PEEnsureThreadRegistered();
    return PEModuleRegistryInstanceOf(moduleClass);
}

+ (NSArray *)selectorNamesOfProtocol:(Protocol *)protocol {
    PEEnsureThreadRegistered();
    NSMutableArray *names = [NSMutableArray array];
    for (PEModuleMethod *m in PEModuleSpecsFromProtocol(protocol, NULL))
        [names addObject:[NSString stringWithUTF8String:sel_getName(m->selector)]];
    return names;
}

+ (BOOL)attachToClass:(Class)delegateClass protocol:(Protocol *)protocol error:(NSError **)error {
    PEEnsureThreadRegistered();
    return attachNow(delegateClass, PEModuleSpecsFromProtocol(protocol, error), error);
}

+ (BOOL)attachToClass:(Class)delegateClass selectors:(NSArray *)selectorNames error:(NSError **)error {
    PEEnsureThreadRegistered();
    return attachNow(delegateClass, PEModuleSpecsFromNames(selectorNames, error), error);
}

+ (BOOL)detachFromClass:(Class)delegateClass {
    if (!delegateClass) return NO;
    PEEnsureThreadRegistered();
    return detachClass(delegateClass);
}

+ (BOOL)isAttachedToClass:(Class)delegateClass selector:(SEL)selector {
    if (!delegateClass || !selector) return NO;
    PEEnsureThreadRegistered();
    lockAttachments();
    PEModuleMethod *m = [findAttachment(delegateClass) methodFor:selector];
    BOOL attached = m && m->hook;
    unlockAttachments();
    return attached;
}

+ (id<PEModulesToken>)attachWhenDelegateIsSetOn:(Class)host selector:(SEL)setter
                                       protocol:(Protocol *)protocol error:(NSError **)error {
    PEEnsureThreadRegistered();
    return attachOnSetter(host, setter, PEModuleSpecsFromProtocol(protocol, error), error);
}

+ (id<PEModulesToken>)attachWhenDelegateIsSetOn:(Class)host selector:(SEL)setter
                                      selectors:(NSArray *)selectorNames error:(NSError **)error {
    PEEnsureThreadRegistered();
    return attachOnSetter(host, setter, PEModuleSpecsFromNames(selectorNames, error), error);
}

+ (void)setErrorHandler:(void (^)(NSString *message))handler {
    PEEnsureThreadRegistered();
    void *copy = handler ? PEBlockCopy((void *)handler) : NULL;
    lockAttachments();
    void *previous = errorHandler;
    errorHandler = copy;
    unlockAttachments();
    if (previous) PEBlockRelease(previous);
}

@end
