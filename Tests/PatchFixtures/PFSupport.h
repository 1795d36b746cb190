/* Private helpers shared by the fixtures (not part of the C interface Swift sees). */
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <objc/message.h>
#include <string.h>
#include <stdlib.h>

/* The IMP a native message send to `receiver` calls, as the fixtures' native callers look it up:
   GCC's runtime has objc_msg_lookup (and no objc_msgSend); Apple's objc_msgSend finds what
   class_getMethodImplementation returns. */
#if defined(GNU_RUNTIME) || defined(__GNU_LIBOBJC__)
#define PF_LOOKUP(receiver, sel) objc_msg_lookup(receiver, sel)
#else
#define PF_LOOKUP(receiver, sel) class_getMethodImplementation(object_getClass(receiver), sel)
#endif

/* A malloc'd UTF-8 copy of `string`, or NULL for nil. Swift frees it with free(). */
char *PFCopyString(NSString *string);

/* A deterministic text form of an object graph, so tests can compare what a native
   caller received: nil, null, "string", 42, 4.5, [a, b], {key: value} (keys sorted),
   class:Name, <ClassName>. */
NSString *PFDescribe(id object);

/* "!Name: reason" for an exception caught at the C boundary. */
char *PFCopyExceptionString(NSException *exception);

/* Every C entry point runs inside its own pool and never lets an NSException escape
   (an uncaught one would abort the test process). */
#define PF_POOL_BEGIN NSAutoreleasePool *pfPool = [NSAutoreleasePool new]; @try {
#define PF_POOL_END } @finally { [pfPool release]; }
