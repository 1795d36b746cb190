#import "PFToolkitSupport.h"
#import "PFToolkitFixture.h"
#include <pthread.h>
#include <ctype.h>
#include <string.h>
#include <stdio.h>

static pthread_mutex_t logLock = PTHREAD_MUTEX_INITIALIZER;
static NSMutableArray *logEntries;

void PFTkLog(NSString *entry)
{
    pthread_mutex_lock(&logLock);
    if (!logEntries) logEntries = [NSMutableArray new];
    [logEntries addObject:entry ? entry : @"(nil)"];
    pthread_mutex_unlock(&logLock);
}

static char currentFamily[32];

void pf_tk_set_current_family(const char *prefix)
{
    pthread_mutex_lock(&logLock);
    snprintf(currentFamily, sizeof currentFamily, "%s", prefix ? prefix : "");
    pthread_mutex_unlock(&logLock);
}

void PFTkLogDealloc(id object)
{
    const char *name = class_getName(object_getClass(object));
    pthread_mutex_lock(&logLock);
    size_t length = strlen(currentFamily);
    /* "PFTk1" must not match "PFTk12Base": the family prefix is followed by the class's role. */
    BOOL current = length > 0 && strncmp(name, currentFamily, length) == 0 && isupper((unsigned char)name[length]);
    pthread_mutex_unlock(&logLock);
    if (current) PFTkLog(@"dealloc");
}

void PFTkLogFormat(NSString *format, ...)
{
    va_list ap;
    va_start(ap, format);
    NSString *entry = [[NSString alloc] initWithFormat:format arguments:ap];
    va_end(ap);
    PFTkLog(entry);
    [entry release];
}

char *pf_tk_log_take(void)
{
    PFTK_BEGIN
        pthread_mutex_lock(&logLock);
        NSString *joined = logEntries ? [logEntries componentsJoinedByString:@" "] : @"";
        char *result = PFCopyString(joined);
        [logEntries removeAllObjects];
        pthread_mutex_unlock(&logLock);
        return result;
    PFTK_END
}

void pf_tk_log_clear(void)
{
    pthread_mutex_lock(&logLock);
    [logEntries removeAllObjects];
    pthread_mutex_unlock(&logLock);
}

/* Scripts log through this class: require('PFToolkitLog').append('js'). */
@interface PFToolkitLog : NSObject
+ (void)append:(NSString *)entry;
@end

@implementation PFToolkitLog
+ (void)append:(NSString *)entry { PFTkLog([entry description]); }
@end

#pragma mark - Tokens

static pthread_mutex_t tokenLock = PTHREAD_MUTEX_INITIALIZER;
static NSMutableDictionary *tokens;
static int lastHandle;

int PFTkKeep(id token)
{
    if (!token) return 0;
    pthread_mutex_lock(&tokenLock);
    if (!tokens) tokens = [NSMutableDictionary new];
    int handle = ++lastHandle;
    [tokens setObject:token forKey:[NSNumber numberWithInt:handle]];
    pthread_mutex_unlock(&tokenLock);
    return handle;
}

int pf_tk_remove(int handle)
{
    PFTK_BEGIN
        pthread_mutex_lock(&tokenLock);
        id token = [[tokens objectForKey:[NSNumber numberWithInt:handle]] retain];
        pthread_mutex_unlock(&tokenLock);
        if (!token) return -1;
        BOOL removed = NO;
        @try {
            removed = [token remove];
        } @finally {
            [token release];
        }
        return removed ? 1 : 0;
    PFTK_END
}

const char *PFTkIntern(const char *text)
{
    static pthread_mutex_t internLock = PTHREAD_MUTEX_INITIALIZER;
    static NSMutableDictionary *interned;
    if (!text) return NULL;
    pthread_mutex_lock(&internLock);
    if (!interned) interned = [NSMutableDictionary new];
    NSString *key = [[NSString alloc] initWithUTF8String:text];
    NSValue *found = [interned objectForKey:key];
    const char *result = found ? (const char *)[found pointerValue] : strdup(text);
    if (!found) [interned setObject:[NSValue valueWithPointer:result] forKey:key];
    [key release];
    pthread_mutex_unlock(&internLock);
    return result;
}

#pragma mark - KVO

@interface PFTkObserver : NSObject {
@public
    id _object;
    NSString *_keyPath;
}
@end

@implementation PFTkObserver
- (void)observeValueForKeyPath:(NSString *)keyPath ofObject:(id)object
                        change:(NSDictionary *)change context:(void *)context
{
    PFTkLogFormat(@"kvo:%@", keyPath);
}
- (void)dealloc
{
    [_object release];
    [_keyPath release];
    [super dealloc];
}
@end

static NSMutableDictionary *observers;

int pf_tk_observe(void *object, const char *keyPath)
{
    PFTK_BEGIN
        PFTkObserver *observer = [[PFTkObserver new] autorelease];
        observer->_object = [(id)object retain];
        observer->_keyPath = [[NSString alloc] initWithUTF8String:keyPath];
        [(id)object addObserver:observer forKeyPath:observer->_keyPath options:0 context:NULL];
        pthread_mutex_lock(&tokenLock);
        if (!observers) observers = [NSMutableDictionary new];
        int handle = ++lastHandle;
        [observers setObject:observer forKey:[NSNumber numberWithInt:handle]];
        pthread_mutex_unlock(&tokenLock);
        return handle;
    PFTK_END
}

void pf_tk_unobserve(int handle)
{
    PFTK_BEGIN
        NSNumber *key = [NSNumber numberWithInt:handle];
        pthread_mutex_lock(&tokenLock);
        PFTkObserver *observer = [[observers objectForKey:key] retain];
        [observers removeObjectForKey:key];
        pthread_mutex_unlock(&tokenLock);
        if (observer) [observer->_object removeObserver:observer forKeyPath:observer->_keyPath];
        [observer release];
    PFTK_END
}
