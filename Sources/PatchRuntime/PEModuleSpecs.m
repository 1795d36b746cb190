/* Lifecycle selectors for module fan-out, taken from a protocol or a list of names. Reads the
   runtime's protocol records only; keeps no state. */
#include "PEModulesInternal.h"
#include <string.h>

NSString *const PEModulesErrorDomain = @"PEModulesErrorDomain";

@implementation PEModuleMethod
- (void)dealloc {
    free(types);
    [super dealloc];
}
- (PEModuleMethod *)copyMethod {
    PEModuleMethod *m = [PEModuleMethod new];
    m->selector = selector;
    m->types = types ? strdup(types) : NULL;
    return m;
}
@end

BOOL PEModuleSameSelector(SEL a, SEL b) {
    return a == b || strcmp(sel_getName(a), sel_getName(b)) == 0;
}

NSError *PEModuleError(PEModulesErrorCode code, NSString *message) {
    return [NSError errorWithDomain:PEModulesErrorDomain code:code
                           userInfo:[NSDictionary dictionaryWithObject:message forKey:NSLocalizedDescriptionKey]];
}

NSString *PEModuleDescribeException(id exception) {
    char *text = PEExceptionMessage(exception);
    NSString *s = [NSString stringWithUTF8String:text];
    free(text);
    return s;
}

static BOOL listed(NSArray *specs, SEL selector) {
    for (PEModuleMethod *s in specs)
        if (PEModuleSameSelector(s->selector, selector)) return YES;
    return NO;
}

static void addProtocolSpecs(Protocol *protocol, NSMutableArray *specs, NSMutableSet *seenProtocols) {
    const char *protocolName = protocol_getName(protocol);
    if (!protocolName || strcmp(protocolName, "NSObject") == 0) return;   /* retain, description... */
    NSString *key = [NSString stringWithUTF8String:protocolName];
    if ([seenProtocols containsObject:key]) return;
    [seenProtocols addObject:key];
    for (int required = 1; required >= 0; required--) {
        unsigned count = 0;
        struct objc_method_description *list = protocol_copyMethodDescriptionList(protocol, (BOOL)required, YES, &count);
        for (unsigned i = 0; i < count; i++) {
            if (!list[i].name || listed(specs, list[i].name)) continue;
            PEModuleMethod *m = [PEModuleMethod new];
            m->selector = sel_registerName(sel_getName(list[i].name));
            m->types = list[i].types ? strdup(list[i].types) : NULL;
            [specs addObject:m];
            [m release];
        }
        free(list);
    }
    unsigned adoptedCount = 0;
    Protocol **adopted = protocol_copyProtocolList(protocol, &adoptedCount);
    for (unsigned i = 0; i < adoptedCount; i++) addProtocolSpecs(adopted[i], specs, seenProtocols);
    free(adopted);
}

NSArray *PEModuleSpecsFromProtocol(Protocol *protocol, NSError **error) {
    if (!protocol) {
        if (error) *error = PEModuleError(PEModulesErrorInvalidArgument, @"no lifecycle protocol was given");
        return nil;
    }
    if (!protocol_getName(protocol)) {
        /* GCC's runtime initialises a protocol when a class adopting it is loaded. */
        if (error) *error = PEModuleError(PEModulesErrorInvalidArgument,
            @"the protocol is not initialised by the runtime (on GCC's runtime, a class adopting it must be loaded)");
        return nil;
    }
    NSMutableArray *specs = [NSMutableArray array];
    addProtocolSpecs(protocol, specs, [NSMutableSet set]);
    if ([specs count] == 0) {
        if (error) *error = PEModuleError(PEModulesErrorInvalidArgument, [NSString stringWithFormat:
            @"protocol %s declares no instance methods this runtime records (GCC's runtime drops optional "
            @"protocol methods: list them with the selectors: variant)", protocol_getName(protocol) ?: "?"]);
        return nil;
    }
    return specs;
}

NSArray *PEModuleSpecsFromNames(NSArray *names, NSError **error) {
    if (![names isKindOfClass:[NSArray class]] || [names count] == 0) {
        if (error) *error = PEModuleError(PEModulesErrorInvalidArgument, @"no lifecycle selectors were given");
        return nil;
    }
    NSMutableArray *specs = [NSMutableArray array];
    for (id name in names) {
        if (![name isKindOfClass:[NSString class]] || [name length] == 0) {
            if (error) *error = PEModuleError(PEModulesErrorInvalidArgument, [NSString stringWithFormat:
                @"lifecycle selectors must be non-empty selector names (strings), not %@", name]);
            return nil;
        }
        SEL selector = sel_registerName([name UTF8String]);
        if (listed(specs, selector)) continue;
        PEModuleMethod *m = [PEModuleMethod new];
        m->selector = selector;
        [specs addObject:m];
        [m release];
    }
    return specs;
}
