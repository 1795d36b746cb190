#import "PFSupport.h"

/* Super chains written in Objective-C, for scripts to extend, patch and call super on.
   See PFHierarchyFixture.h for the table. */
@interface PFSuperA : NSObject
- (NSString *)method;
@end
@implementation PFSuperA
- (NSString *)method { return @"A"; }
@end

@interface PFSuperB : NSObject
- (NSString *)method;
@end
@implementation PFSuperB
- (NSString *)method { return @"B"; }
@end

@interface PFSuperB1 : PFSuperB
@end
@implementation PFSuperB1
- (NSString *)method { return [[super method] stringByAppendingString:@"1"]; }
@end

@interface PFSuperC : NSObject
- (NSString *)method;
@end
@implementation PFSuperC
- (NSString *)method { return @"C"; }
@end

@interface PFSuperC1 : PFSuperC
@end
@implementation PFSuperC1
- (NSString *)method { return [[super method] stringByAppendingString:@"1"]; }
@end

@interface PFSuperC2 : PFSuperC1
@end
@implementation PFSuperC2
- (NSString *)method { return [[super method] stringByAppendingString:@"2"]; }
@end

/* Base / Mid / Leaf families: identical shape, separate classes so tests stay independent. */
#define PF_CHAIN_FAMILY(F)                                                              \
@interface PF##F##Base : NSObject                                                       \
- (NSString *)method;                                                                   \
@end                                                                                    \
@implementation PF##F##Base                                                             \
- (NSString *)method { return @"base"; }                                                \
@end                                                                                    \
@interface PF##F##Mid : PF##F##Base                                                     \
@end                                                                                    \
@implementation PF##F##Mid                                                              \
- (NSString *)method { return [[super method] stringByAppendingString:@">mid"]; }       \
@end                                                                                    \
@interface PF##F##Leaf : PF##F##Mid                                                     \
@end                                                                                    \
@implementation PF##F##Leaf                                                             \
- (NSString *)method { return [[super method] stringByAppendingString:@">leaf"]; }      \
@end

PF_CHAIN_FAMILY(Chain)
PF_CHAIN_FAMILY(Loop)
PF_CHAIN_FAMILY(Late)
PF_CHAIN_FAMILY(Deep)
PF_CHAIN_FAMILY(Thread)
PF_CHAIN_FAMILY(Revert)
