/* Order-safe swizzling for native code (RSSwizzle's model) as a layer of the dispatcher: the
   replacement never copies the superclass IMP; its original is resolved at call time (the class's
   own implementation, or the superclass's current one), so parent, child, grandchild and sibling
   swizzles compose in any order, each layer running once per call. Objective-C only. */
#ifndef PE_SWIZZLE_H
#define PE_SWIZZLE_H
#ifdef __OBJC__
#import <Foundation/Foundation.h>

typedef NS_ENUM(NSUInteger, PESwizzleMode) {
    /* Swizzle every time it is asked. */
    PESwizzleModeAlways = 0,
    /* Once per class for a key. */
    PESwizzleModeOncePerClass = 1,
    /* Once per class for a key, and not when a superclass was already swizzled for it. */
    PESwizzleModeOncePerClassAndSuperclasses = 2,
};

@interface PESwizzleInfo : NSObject {
@package
    /* GCC's runtime has fragile ivars: they must be declared here, not in the @implementation. */
    struct PESwizzleLayer *_layer;
}
/* The implementation below this swizzle, as a stable IMP that resolves the real one at call time.
   Call it as the method: ((R (*)(id, SEL, A...))info.originalImplementation)(self, info.selector, a...). */
@property (nonatomic, readonly) IMP originalImplementation;
@property (nonatomic, readonly) SEL selector;
@end

/* Returned by a swizzle: -remove takes the layer out (YES once). */
@protocol PESwizzleToken <NSObject>
- (BOOL)remove;
@end

@interface PESwizzle : NSObject
/* Swizzles an instance method (class methods: pass the metaclass, or use the method below).
   `block` is the replacement: it takes (PESwizzleInfo *info, id self, the method's arguments...)
   and returns the method's type; info.originalImplementation calls what was there, resolved at
   call time. The block is copied. (RSSwizzle passes a factory returning the block instead; under
   manual reference counting on GCC's runtime a returned block can't be autoreleased, so the info
   comes in as the first argument, as in Aspects.)
   Returns nil when `mode` says it was already done for `key` (no error then), or with *error set
   when the class doesn't respond to the selector or the block doesn't match the method. */
+ (id<PESwizzleToken>)swizzleInstanceMethod:(SEL)selector inClass:(Class)cls
                                       mode:(PESwizzleMode)mode key:(const void *)key
                                      error:(NSError **)error usingBlock:(id)block;
+ (id<PESwizzleToken>)swizzleClassMethod:(SEL)selector inClass:(Class)cls
                                   error:(NSError **)error usingBlock:(id)block;
@end

extern NSString *const PESwizzleErrorDomain;

#endif
#endif
