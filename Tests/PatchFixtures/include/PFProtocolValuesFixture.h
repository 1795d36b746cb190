/* Protocol values (`protocol('NSCopying')`, `@protocol(NSCopying)` in a patch): PFProtocolCheck's
   methods answer NO natively (the shipped bug a patch fixes); native callers read their BOOLs.

   @interface PFProtocolCheck : NSObject                  (PFProtocolValues.m)
     - (BOOL)copies:(id)object;                          NO natively
     - (BOOL)object:(id)object conformsTo:(Protocol *)p; NO natively
     - (Protocol *)echo:(Protocol *)p;                   returns p
   `which` picks the argument: 0 an NSString, 1 a plain NSObject, 2 a new instance of className.

   @protocol PFNeverAdopted <NSCopying>                  (PFUnregisteredProtocols.m, adopted nowhere)
     - (int)neverAdoptedValue:(int)x;
   @interface PFProtocolSource : NSObject                 (PFUnregisteredProtocols.m)
     - (Protocol *)copyingProtocol;                      @protocol(NSCopying), unregistered
     - (Protocol *)neverAdoptedProtocol;                 @protocol(PFNeverAdopted), unregistered
     - (int)visit:(int (^)(Protocol *p))block;           block(@protocol(NSCopying)), unregistered
   Protocols are `void *` here. */
#ifndef PF_PROTOCOL_VALUES_FIXTURE_H
#define PF_PROTOCOL_VALUES_FIXTURE_H
#include <stdint.h>

/* [[PFProtocolCheck new] copies:argument] as a native caller reads it: 1, 0, or -1 if it raised. */
int pf_protocol_check_copies(int which, const char *className);
/* [argument conformsToProtocol:@protocol(NSCopying)] in compiled code, for comparison. */
int pf_protocol_compiled_copies(int which, const char *className);
/* @protocol(NSCopying) or @protocol(NSCoding) compiled in a module that adopts them (registered). */
void *pf_protocol_compiled(const char *name);
/* objc_getProtocol(name): the runtime's one (NULL when it has none). */
void *pf_protocol_runtime(const char *name);
/* [[PFProtocolCheck new] object:argument conformsTo:protocol]: the protocol crosses from native
   code into the patch. 1, 0, or -1 if it raised. */
int pf_protocol_check_object_conforms(int which, const char *className, void *protocol);
/* [[PFProtocolCheck new] echo:protocol] as native code receives it (NULL if it raised). */
void *pf_protocol_check_echo(void *protocol);

/* @protocol(NSCopying), @protocol(NSCoding) or @protocol(PFNeverAdopted) compiled in a module
   that adopts none: on GCC's runtime, objects the runtime never registered. */
void *pf_protocol_unregistered(const char *name);
/* The protocol object's first word (its class; 2 for an unregistered one on GCC's runtime). */
uintptr_t pf_protocol_class_word(void *protocol);
/* [@"text" conformsToProtocol:protocol] in compiled code. */
int pf_protocol_string_conforms(void *protocol);
/* [[className new] neverAdoptedValue:x] as native code sends it; -1 if it raised. */
int pf_protocol_never_adopted_value(const char *className, int x);

#endif
