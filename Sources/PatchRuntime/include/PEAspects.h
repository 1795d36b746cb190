/* Aspects-compatible Objective-C API (names, values, error domain and codes of Aspects 1.4), on
   PatchEngine's dispatcher: several hooks per hierarchy, class methods, and composition with JS
   patches and swizzles. Objective-C only. */
#ifndef PE_ASPECTS_H
#define PE_ASPECTS_H
#ifdef __OBJC__
#import <Foundation/Foundation.h>
#include "PEHooks.h"

typedef NS_OPTIONS(NSUInteger, AspectOptions) {
    AspectPositionAfter = PEHookPositionAfter,
    AspectPositionInstead = PEHookPositionInstead,
    AspectPositionBefore = PEHookPositionBefore,
    AspectOptionAutomaticRemoval = PEHookOptionAutomaticRemoval,
};

/* Returned by a hook: -remove undoes it (YES once, NO afterwards). */
@protocol AspectToken <NSObject>
- (BOOL)remove;
@end

/* The first parameter of every hook block. */
@protocol AspectInfo <NSObject>
- (id)instance;
/* NSInvocation-compatible object for the call: -invoke runs what the hook wraps (JS patch,
   swizzles, original); get/setReturnValue:, get/setArgument:atIndex:, selector, target. */
- (NSInvocation *)originalInvocation;
/* The arguments, scalars boxed as NSNumber/NSValue, nil as NSNull. */
- (NSArray *)arguments;
@end

@interface NSObject (Aspects)
+ (id<AspectToken>)aspect_hookSelector:(SEL)selector withOptions:(AspectOptions)options
                            usingBlock:(id)block error:(NSError **)error;
- (id<AspectToken>)aspect_hookSelector:(SEL)selector withOptions:(AspectOptions)options
                            usingBlock:(id)block error:(NSError **)error;
@end

extern NSString *const AspectErrorDomain;

typedef NS_ENUM(NSUInteger, AspectErrorCode) {
    AspectErrorSelectorBlacklisted = PEHookErrorSelectorBlacklisted,
    AspectErrorDoesNotRespondToSelector = PEHookErrorDoesNotRespondToSelector,
    AspectErrorSelectorDeallocPosition = PEHookErrorSelectorDeallocPosition,
    AspectErrorSelectorAlreadyHookedInClassHierarchy = PEHookErrorSelectorAlreadyHookedInClassHierarchy,
    AspectErrorFailedToAllocateClassPair = PEHookErrorFailedToAllocateClassPair,
    AspectErrorMissingBlockSignature = PEHookErrorMissingBlockSignature,
    AspectErrorIncompatibleBlockSignature = PEHookErrorIncompatibleBlockSignature,
    AspectErrorRemoveObjectAlreadyDeallocated = PEHookErrorRemoveObjectAlreadyDeallocated,
};

/* Beyond Aspects: the info object also answers -invokeOriginal, which runs what the hook wraps
   and returns its return value boxed (NSNumber/NSValue; nil for void). */
@protocol PEAspectInfoInvoking <AspectInfo>
- (id)invokeOriginal;
@end

#endif
#endif
