/* `@protocol(X)` expressions (issue 33): conformsToProtocol: with a protocol named in the code, a
   protocol passed as an argument and one returned. A patch writes them protocol('X').
   This file adopts every protocol it names (CCProtocolShape): clang's code for GCC's runtime
   leaves a module's @protocol(X) unregistered, answering NO to every conformsToProtocol:, unless
   a class of the same module adopts X (docs/platform-notes.md); the converted code always has the
   runtime's protocol, as compiled code on Apple's runtime does. */
#import <Foundation/Foundation.h>
#import "ConversionCorpus.h"

@protocol CCNamed <NSObject>
- (NSString *)name;
@end

@interface CCProtocolShape : NSObject <CCNamed, NSCopying>
@end

@implementation CCProtocolShape
- (NSString *)name { return @"shape"; }
- (id)copyWithZone:(NSZone *)zone { return [self retain]; }
@end

@interface CCProtocols : NSObject
- (BOOL)object:(id)object adopts:(Protocol *)protocol;
- (Protocol *)protocolFor:(NSInteger)kind;
@end

@implementation CCProtocols

/* Instances and classes asked about protocols named in the code. */
- (NSString *)conformances:(id)object
{
    return [NSString stringWithFormat:@"%d %d %d %d", [object conformsToProtocol:@protocol(NSCopying)],
                                      [object conformsToProtocol:@protocol(CCNamed)],
                                      [[object class] conformsToProtocol:@protocol(CCNamed)],
                                      [CCProtocolShape conformsToProtocol:@protocol(NSCopying)]];
}

/* A protocol received as an argument. */
- (BOOL)object:(id)object adopts:(Protocol *)protocol
{
    return [object conformsToProtocol:protocol];
}

/* A protocol passed as an argument. */
- (NSString *)passed:(id)object
{
    BOOL named = [self object:object adopts:@protocol(CCNamed)];
    return [NSString stringWithFormat:@"%d %d", named, [self object:object adopts:@protocol(NSCopying)]];
}

/* A protocol returned, and one kept in a local. */
- (Protocol *)protocolFor:(NSInteger)kind
{
    return kind == 0 ? @protocol(NSCopying) : @protocol(CCNamed);
}

- (NSString *)returned:(id)object
{
    Protocol *named = [self protocolFor:1];
    NSString *name = [object conformsToProtocol:named] ? [(id<CCNamed>)object name] : @"-";
    return [NSString stringWithFormat:@"%@ %d", name, [object conformsToProtocol:[self protocolFor:0]]];
}
@end

int cc_protocols_class_count(void)
{
    return [CCProtocols class] != Nil && [CCProtocolShape class] != Nil ? 2 : 0;
}
