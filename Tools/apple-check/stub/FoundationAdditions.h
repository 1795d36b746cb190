/* Foundation declarations the package's Objective-C uses beyond the shared tool's stub
   (../shared/tools/apple-compile-check/stub), for `make apple-check` only: each copied in shape
   from the Apple SDK header named beside it (iOS 15-17 / macOS 13-14 SDKs). The same rule as the
   tool's stub: never a method, function or constant Apple does not ship, never a looser type.
   Tools/apple-check/run.sh puts it after the tool's Foundation.h. */
#ifndef PE_APPLE_CHECK_FOUNDATION_ADDITIONS_H
#define PE_APPLE_CHECK_FOUNDATION_ADDITIONS_H
#include <CoreGraphics/CoreGraphics.h>      /* NSGeometry.h imports CGBase.h and CGGeometry.h */

/* NSObjCRuntime.h's macro the tool's stub does not define. */
#ifndef NS_REQUIRES_NIL_TERMINATION
#define NS_REQUIRES_NIL_TERMINATION __attribute__((sentinel(0,1)))
#endif

/* NSObjCRuntime.h's block annotation. */
#ifndef NS_NOESCAPE
#define NS_NOESCAPE __attribute__((noescape))
#endif

NS_ASSUME_NONNULL_BEGIN

/* ---- NSObject.h (NSCoding), NSCoder.h ---- */
@class NSCoder;
@protocol NSCoding
- (void)encodeWithCoder:(NSCoder *)coder;
- (nullable instancetype)initWithCoder:(NSCoder *)coder;
@end

/* ---- NSDate.h ---- */
typedef double NSTimeInterval;

/* ---- NSRange.h ---- */
typedef struct _NSRange {
    NSUInteger location;
    NSUInteger length;
} NSRange;
NS_INLINE NSRange NSMakeRange(NSUInteger loc, NSUInteger len) {
    NSRange r;
    r.location = loc;
    r.length = len;
    return r;
}

/* ---- NSGeometry.h (64-bit: the CoreGraphics types) ---- */
typedef CGPoint NSPoint;
typedef CGSize NSSize;
typedef CGRect NSRect;
NS_INLINE NSPoint NSMakePoint(CGFloat x, CGFloat y) {
    NSPoint p;
    p.x = x;
    p.y = y;
    return p;
}
NS_INLINE NSSize NSMakeSize(CGFloat w, CGFloat h) {
    NSSize s;
    s.width = w;
    s.height = h;
    return s;
}
NS_INLINE NSRect NSMakeRect(CGFloat x, CGFloat y, CGFloat w, CGFloat h) {
    NSRect r;
    r.origin.x = x;
    r.origin.y = y;
    r.size.width = w;
    r.size.height = h;
    return r;
}

/* ---- NSObjCRuntime.h ---- */
FOUNDATION_EXPORT SEL NSSelectorFromString(NSString *aSelectorName);
FOUNDATION_EXPORT Class _Nullable NSClassFromString(NSString *aClassName);
FOUNDATION_EXPORT NSString *NSStringFromSelector(SEL aSelector);
FOUNDATION_EXPORT NSString *NSStringFromClass(Class aClass);

@class NSCharacterSet;

/* ---- NSString.h ---- */
typedef unsigned short unichar;
@interface NSString (PEAppleCheckNSStringExtensionMethods)
- (NSString *)substringWithRange:(NSRange)range;
- (BOOL)isEqualToString:(NSString *)aString;
- (BOOL)hasPrefix:(NSString *)str;
- (NSString *)stringByAppendingString:(NSString *)aString;
- (NSString *)stringByAppendingFormat:(NSString *)format, ... NS_FORMAT_FUNCTION(1,2);
@property (readonly) NSInteger integerValue;
- (NSArray<NSString *> *)componentsSeparatedByString:(NSString *)separator;
@property (readonly, copy) NSString *uppercaseString;
@property (readonly, copy) NSString *lowercaseString;
- (NSString *)stringByPaddingToLength:(NSUInteger)newLength withString:(NSString *)padString startingAtIndex:(NSUInteger)padIndex;
- (NSString *)stringByReplacingOccurrencesOfString:(NSString *)target withString:(NSString *)replacement;
- (instancetype)initWithString:(NSString *)aString;
+ (instancetype)string;
- (NSString *)stringByTrimmingCharactersInSet:(NSCharacterSet *)set;
@end
@interface NSString (PEAppleCheckNSStringPathExtensions)
@property (readonly) __strong const char *fileSystemRepresentation NS_RETURNS_INNER_POINTER;
@end
@interface NSMutableString (PEAppleCheckNSMutableStringExtensionMethods)
- (void)setString:(NSString *)aString;
@end

/* ---- NSArray.h ---- */
/* ---- NSEnumerator.h ---- */
@interface NSEnumerator<ObjectType> : NSObject
- (nullable ObjectType)nextObject;
@end

@interface NSArray<ObjectType> (PEAppleCheckNSArray)
- (instancetype)initWithObjects:(const ObjectType _Nonnull [_Nullable])objects count:(NSUInteger)cnt;
@end
@interface NSArray<ObjectType> (PEAppleCheckNSExtendedArray)
- (NSUInteger)indexOfObject:(ObjectType)anObject;
- (NSString *)componentsJoinedByString:(NSString *)separator;
@property (nullable, nonatomic, readonly) ObjectType lastObject;
- (NSEnumerator<ObjectType> *)objectEnumerator;
- (NSArray<ObjectType> *)sortedArrayUsingSelector:(SEL)comparator;
@end
@interface NSArray<ObjectType> (PEAppleCheckNSArrayCreation)
+ (instancetype)arrayWithObjects:(ObjectType)firstObj, ... NS_REQUIRES_NIL_TERMINATION;
+ (instancetype)arrayWithObjects:(const ObjectType _Nonnull [_Nonnull])objects count:(NSUInteger)cnt;
- (instancetype)initWithObjects:(ObjectType)firstObj, ... NS_REQUIRES_NIL_TERMINATION;
@end
@interface NSMutableArray<ObjectType> (PEAppleCheckNSExtendedMutableArray)
- (void)removeAllObjects;
@end

/* ---- NSDictionary.h ---- */
@interface NSDictionary<KeyType, ObjectType> (PEAppleCheckNSExtendedDictionary)
- (void)enumerateKeysAndObjectsUsingBlock:(void (NS_NOESCAPE ^)(KeyType key, ObjectType obj, BOOL *stop))block;
@end
@interface NSDictionary<KeyType, ObjectType> (PEAppleCheckNSDictionaryCreation)
+ (instancetype)dictionaryWithObjectsAndKeys:(id)firstObject, ... NS_REQUIRES_NIL_TERMINATION;
+ (instancetype)dictionaryWithObjects:(const ObjectType _Nonnull [_Nullable])objects forKeys:(const KeyType <NSCopying> _Nonnull [_Nullable])keys count:(NSUInteger)cnt;
- (instancetype)initWithObjectsAndKeys:(id)firstObject, ... NS_REQUIRES_NIL_TERMINATION;
@end

/* ---- NSData.h ---- */
@interface NSData (PEAppleCheckNSDataCreation)
+ (nullable instancetype)dataWithContentsOfFile:(NSString *)path;
@end

/* ---- NSValue.h ---- */
@interface NSNumber (PEAppleCheckNSNumberCreation)
- (NSNumber *)initWithInt:(int)value;
+ (NSNumber *)numberWithInteger:(NSInteger)value;
@end
@interface NSNumber (PEAppleCheckNSNumberComparison)
@property (readonly, copy) NSString *stringValue;
- (NSComparisonResult)compare:(NSNumber *)otherNumber;
- (BOOL)isEqualToNumber:(NSNumber *)number;
@end

/* ---- NSScanner.h ---- */
@interface NSScanner : NSObject
+ (instancetype)scannerWithString:(NSString *)string;
- (BOOL)scanUpToString:(NSString *)substring intoString:(NSString * _Nullable * _Nullable)result;
@end

/* ---- NSError.h ---- */
@interface NSError (PEAppleCheckNSError)
@property (readonly, copy) NSDictionary<NSErrorUserInfoKey, id> *userInfo;
@end

/* ---- NSURL.h ---- */
@interface NSURL : NSObject <NSCopying>
+ (nullable instancetype)URLWithString:(NSString *)URLString;
+ (NSURL *)fileURLWithPath:(NSString *)path;
@property (nullable, readonly, copy) NSString *absoluteString;
@property (nullable, readonly, copy) NSString *path;
@end

/* ---- NSLock.h ---- */
@protocol NSLocking
- (void)lock;
- (void)unlock;
@end
@interface NSLock : NSObject <NSLocking>
- (BOOL)tryLock;
@end

/* ---- NSThread.h ---- */
@interface NSThread : NSObject
@property (class, readonly, strong) NSThread *currentThread;
@property (class, readonly) BOOL isMainThread;
@end

/* ---- NSCharacterSet.h ---- */
@interface NSCharacterSet : NSObject <NSCopying, NSMutableCopying>
@property (readonly, class, copy) NSCharacterSet *whitespaceCharacterSet;
@property (readonly, class, copy) NSCharacterSet *whitespaceAndNewlineCharacterSet;
- (BOOL)characterIsMember:(unichar)aCharacter;
@end

/* ---- NSKeyValueObserving.h ---- */
typedef NS_OPTIONS(NSUInteger, NSKeyValueObservingOptions) {
    NSKeyValueObservingOptionNew = 0x01,
    NSKeyValueObservingOptionOld = 0x02,
    NSKeyValueObservingOptionInitial = 0x04,
    NSKeyValueObservingOptionPrior = 0x08
};
@interface NSObject (PEAppleCheckNSKeyValueObserverRegistration)
- (void)addObserver:(NSObject *)observer forKeyPath:(NSString *)keyPath options:(NSKeyValueObservingOptions)options context:(nullable void *)context;
- (void)removeObserver:(NSObject *)observer forKeyPath:(NSString *)keyPath;
@end

NS_ASSUME_NONNULL_END
#endif
