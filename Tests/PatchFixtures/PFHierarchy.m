#import "PFSupport.h"
#import "PFHierarchyFixture.h"

@interface PFAnimal : NSObject
- (NSString *)sound;
- (NSString *)name;
- (int)legs;
- (NSString *)describe;
@end
@interface PFDog : PFAnimal
@end
@interface PFPuppy : PFDog
@end
@interface PFCat : PFAnimal
@end
@interface PFBird : PFAnimal
@end

@implementation PFAnimal
- (NSString *)sound { return @"..."; }
- (NSString *)name { return @"animal"; }
- (int)legs { return 4; }
- (NSString *)describe { return [NSString stringWithFormat:@"%@ says %@", [self name], [self sound]]; }
@end

@implementation PFDog
- (NSString *)sound { return @"woof"; }
@end

@implementation PFPuppy
- (NSString *)name { return @"puppy"; }
@end

@implementation PFCat
- (NSString *)sound { return @"meow"; }
@end

@implementation PFBird
- (int)legs { return 2; }
@end

int pf_animal_legs(const char *className)
{
    PF_POOL_BEGIN
        @try {
            PFAnimal *animal = [[objc_getClass(className) new] autorelease];
            return [animal legs];
        } @catch (NSException *e) {
            return -1;
        }
    PF_POOL_END
}
