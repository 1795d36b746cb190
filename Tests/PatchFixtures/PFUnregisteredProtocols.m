#import "PFSupport.h"
#import "PFProtocolValuesFixture.h"

/* No class or category of this file adopts a protocol, so GCC's runtime registers none of the
   protocol objects its @protocol() expressions name: each keeps the class word 0x2 (PEPlatform.h).
   PFNeverAdopted is adopted nowhere in the program. */
@protocol PFNeverAdopted <NSCopying>
- (int)neverAdoptedValue:(int)x;
@end

@interface PFProtocolSource : NSObject
- (Protocol *)copyingProtocol;
- (Protocol *)neverAdoptedProtocol;
- (int)visit:(int (^)(Protocol *p))block;
@end

@implementation PFProtocolSource
- (Protocol *)copyingProtocol { return @protocol(NSCopying); }
- (Protocol *)neverAdoptedProtocol { return @protocol(PFNeverAdopted); }
- (int)visit:(int (^)(Protocol *p))block { return block(@protocol(NSCopying)); }
@end

void *pf_protocol_unregistered(const char *name)
{
    if (strcmp(name, "PFNeverAdopted") == 0) return @protocol(PFNeverAdopted);
    return strcmp(name, "NSCoding") == 0 ? @protocol(NSCoding) : @protocol(NSCopying);
}

uintptr_t pf_protocol_class_word(void *protocol)
{
    return *(uintptr_t *)protocol;
}

int pf_protocol_string_conforms(void *protocol)
{
    PF_POOL_BEGIN
        return [[NSString stringWithUTF8String:"text"] conformsToProtocol:(Protocol *)protocol] ? 1 : 0;
    PF_POOL_END
}

int pf_protocol_never_adopted_value(const char *className, int x)
{
    PF_POOL_BEGIN
        @try { return [(id<PFNeverAdopted>)[[objc_getClass(className) new] autorelease] neverAdoptedValue:x]; }
        @catch (id e) { return -1; }
    PF_POOL_END
}
