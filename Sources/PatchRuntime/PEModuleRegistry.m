/* The registered modules (module fan-out). The lock guards the list and each entry's fields and is
   held only to read or change them: a module's -init, -respondsToSelector:, -retain or -dealloc
   never runs under it, so a module may call the registry from any thread at any time. */
#include "PEModulesInternal.h"
#include <pthread.h>
#include <errno.h>
#include <time.h>

/* How long a fan-out waits for another thread's -init of the same module class. */
static const int PEModuleInitWaitSeconds = 10;

/* One registration. */
@interface PEModuleEntry : NSObject {
@public
    Class moduleClass;      /* Nil for an object registration */
    id module;              /* the object, or the class's instance once made; released with the entry */
    pthread_t initThread;   /* the thread running -init while `initializing` */
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

static pthread_mutex_t registryLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t initFinished = PTHREAD_COND_INITIALIZER;   /* an -init ended (with registryLock) */
static NSMutableArray *entries;                                  /* PEModuleEntry, registration order */

/* Under the lock. */
static NSMutableArray *registeredEntries(void) {
    if (!entries) entries = [NSMutableArray new];
    return entries;
}

/* Under the lock. */
static PEModuleEntry *findEntry(Class moduleClass, id module) {
    for (PEModuleEntry *e in registeredEntries())
        if (moduleClass ? e->moduleClass == moduleClass : (!e->moduleClass && e->module == module)) return e;
    return nil;
}

/* Under the lock. */
static BOOL isRegistered(PEModuleEntry *e) {
    return [registeredEntries() indexOfObjectIdenticalTo:e] != NSNotFound;
}

BOOL PEModuleRegistryAdd(Class moduleClass, id module) {
    PEModuleEntry *made = [PEModuleEntry new];
    made->moduleClass = moduleClass;
    made->module = [module retain];
    pthread_mutex_lock(&registryLock);
    BOOL known = findEntry(moduleClass, module) != nil;
    if (!known) [registeredEntries() addObject:made];
    pthread_mutex_unlock(&registryLock);
    [made release];
    return !known;
}

BOOL PEModuleRegistryRemove(Class moduleClass, id module) {
    pthread_mutex_lock(&registryLock);
    PEModuleEntry *removed = [findEntry(moduleClass, module) retain];
    if (removed) [registeredEntries() removeObjectIdenticalTo:removed];
    pthread_mutex_unlock(&registryLock);
    [removed release];          /* the module's -dealloc, if this was the last reference */
    return removed != nil;
}

/* The entries (retained, so their modules live) and what each one registers, read under the lock. */
static NSArray *snapshot(id **registered) {
    pthread_mutex_lock(&registryLock);
    NSArray *list = [registeredEntries() copy];
    NSUInteger count = [list count];
    *registered = calloc(count ? count : 1, sizeof(id));
    for (NSUInteger i = 0; i < count; i++) {
        PEModuleEntry *e = [list objectAtIndex:i];
        (*registered)[i] = e->moduleClass ? (id)e->moduleClass : e->module;
    }
    pthread_mutex_unlock(&registryLock);
    return list;
}

NSArray *PEModuleRegistryList(void) {
    id *registered = NULL;
    NSArray *list = snapshot(&registered);
    NSMutableArray *result = [NSMutableArray arrayWithCapacity:[list count]];
    for (NSUInteger i = 0; i < [list count]; i++) [result addObject:registered[i]];
    free(registered);
    [list release];
    return result;
}

id PEModuleRegistryInstanceOf(Class moduleClass) {
    if (!moduleClass) return nil;
    pthread_mutex_lock(&registryLock);
    PEModuleEntry *e = [findEntry(moduleClass, nil) retain];
    id instance = e ? e->module : nil;
    pthread_mutex_unlock(&registryLock);
    [[instance retain] autorelease];
    [e release];
    return instance;
}

/* Waits, with the lock held, until no other thread is running `e`'s -init; NO if it still is
   after PEModuleInitWaitSeconds. */
static BOOL waitForInit(PEModuleEntry *e) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += PEModuleInitWaitSeconds;
    while (e->initializing) {       /* ends by the deadline at the latest */
        if (pthread_cond_timedwait(&initFinished, &registryLock, &deadline) == ETIMEDOUT) return !e->initializing;
    }
    return YES;
}

NSArray *PEModuleRegistryModulesToCall(NSMutableArray *failures) {
    id *registered = NULL;
    NSArray *list = snapshot(&registered);
    free(registered);
    NSMutableArray *modules = [NSMutableArray arrayWithCapacity:[list count]];
    for (PEModuleEntry *e in list) {
        BOOL make = NO, timedOut = NO;
        pthread_mutex_lock(&registryLock);
        if (e->moduleClass && !e->module && !e->failed) {
            if (!e->initializing) {
                e->initializing = YES;
                e->initThread = pthread_self();
                make = YES;
            } else if (!pthread_equal(e->initThread, pthread_self())) {
                timedOut = !waitForInit(e);
            }   /* else: a lifecycle call from inside this thread's -init: the module is not ready */
        }
        id module = isRegistered(e) ? e->module : nil;
        pthread_mutex_unlock(&registryLock);

        if (make) {
            id made = nil;
            NSString *failure = nil;
            @try {
                made = [[e->moduleClass alloc] init];
                if (!made) failure = [NSString stringWithFormat:@"module class %s returned nil from -init",
                                      class_getName(e->moduleClass)];
            } @catch (id exception) {
                failure = [NSString stringWithFormat:@"module class %s raised in -init: %@",
                           class_getName(e->moduleClass), PEModuleDescribeException(exception)];
            }
            pthread_mutex_lock(&registryLock);
            e->module = made;       /* released with the entry, also if -init unregistered it */
            e->failed = made == nil;
            e->initializing = NO;
            module = isRegistered(e) ? made : nil;
            pthread_cond_broadcast(&initFinished);
            pthread_mutex_unlock(&registryLock);
            if (failure) [failures addObject:failure];
        }
        if (timedOut)
            [failures addObject:[NSString stringWithFormat:@"module class %s: its -init has been running on another "
                                 @"thread for %d s; this call skips it", class_getName(e->moduleClass),
                                 PEModuleInitWaitSeconds]];
        if (module) [modules addObject:module];     /* the entry, held by `list`, keeps it alive until here */
    }
    [list release];
    return modules;
}
