#import "PFSupport.h"
#import "PFProtocolValuesFixture.h"

@interface PFProtocolCheck : NSObject
- (BOOL)copies:(id)object;
- (BOOL)object:(id)object conformsTo:(Protocol *)p;
- (Protocol *)echo:(Protocol *)p;
@end

/* Adopts the protocols this file names with @protocol(): clang's code for GCC's runtime leaves a
   module's @protocol(X) object unregistered (its class word 0x2, answering NO to every
   conformsToProtocol:) unless a class or category of the same module adopts X
   (PFUnregisteredProtocols.m is the module that doesn't). */
@interface PFProtocolAdopter : NSObject <NSCopying, NSCoding>
@end
@implementation PFProtocolAdopter
- (id)copyWithZone:(NSZone *)zone { return [self retain]; }
- (void)encodeWithCoder:(NSCoder *)coder {}
- (id)initWithCoder:(NSCoder *)coder { return [self init]; }
@end

@implementation PFProtocolCheck
- (BOOL)copies:(id)object { return NO; }
- (BOOL)object:(id)object conformsTo:(Protocol *)p { return NO; }
- (Protocol *)echo:(Protocol *)p { return p; }
@end

static id PFProtocolArgument(int which, const char *className)
{
    switch (which) {
    case 0: return [NSString stringWithUTF8String:"text"];
    case 1: return [[NSObject new] autorelease];
    default: return [[objc_getClass(className) new] autorelease];
    }
}

int pf_protocol_check_copies(int which, const char *className)
{
    PF_POOL_BEGIN
        @try { return [[[PFProtocolCheck new] autorelease] copies:PFProtocolArgument(which, className)] ? 1 : 0; }
        @catch (id e) { return -1; }
    PF_POOL_END
}

int pf_protocol_compiled_copies(int which, const char *className)
{
    PF_POOL_BEGIN
        return [PFProtocolArgument(which, className) conformsToProtocol:@protocol(NSCopying)] ? 1 : 0;
    PF_POOL_END
}

void *pf_protocol_compiled(const char *name)
{
    return strcmp(name, "NSCoding") == 0 ? @protocol(NSCoding) : @protocol(NSCopying);
}

void *pf_protocol_runtime(const char *name)
{
    return objc_getProtocol(name);
}

int pf_protocol_check_object_conforms(int which, const char *className, void *protocol)
{
    PF_POOL_BEGIN
        @try {
            return [[[PFProtocolCheck new] autorelease] object:PFProtocolArgument(which, className) conformsTo:(Protocol *)protocol] ? 1 : 0;
        }
        @catch (id e) { return -1; }
    PF_POOL_END
}

void *pf_protocol_check_echo(void *protocol)
{
    PF_POOL_BEGIN
        @try { return [[[PFProtocolCheck new] autorelease] echo:(Protocol *)protocol]; }
        @catch (id e) { return NULL; }
    PF_POOL_END
}
