/* Protocol values (`protocol('NSCopying')`, `@protocol(NSCopying)` in a patch): PFProtocolCheck's
   methods answer NO natively (the shipped bug a patch fixes); native callers read their BOOLs.

   @interface PFProtocolCheck : NSObject
     - (BOOL)copies:(id)object;                          NO natively
     - (BOOL)object:(id)object conformsTo:(Protocol *)p; NO natively
     - (Protocol *)echo:(Protocol *)p;                   returns p
   `which` picks the argument: 0 an NSString, 1 a plain NSObject, 2 a new instance of className. */
#ifndef PF_PROTOCOL_VALUES_FIXTURE_H
#define PF_PROTOCOL_VALUES_FIXTURE_H

/* [[PFProtocolCheck new] copies:argument] as a native caller reads it: 1, 0, or -1 if it raised. */
int pf_protocol_check_copies(int which, const char *className);
/* [argument conformsToProtocol:@protocol(NSCopying)] in compiled code, for comparison. */
int pf_protocol_compiled_copies(int which, const char *className);
/* [[PFProtocolCheck new] object:argument conformsTo:<a compiled @protocol(name)>], name being
   NSCopying or NSCoding: the protocol object crosses from native code into the patch. */
int pf_protocol_check_object_conforms(int which, const char *className, const char *protocolName);

#endif
