/* Enumerating an NSDictionary subclass that has only NSDictionary's primitives (PFPlainDictionary:
   count, objectForKey:, keyEnumerator; no fast enumeration of its own) from a patch.

   @interface PFEnumerationProbe : NSObject
     - (NSString *)describe:(NSDictionary *)dictionary;   @"native" natively */
#ifndef PF_ENUMERATION_FIXTURE_H
#define PF_ENUMERATION_FIXTURE_H

/* [[PFEnumerationProbe new] describe:d], d being {a: 1, b: 2} as an NSDictionary (0) or a
   PFPlainDictionary (1), or {stop: 1, x: 2, y: 3} (2); "!Name: reason" if it raised. malloc'd. */
char *pf_enumeration_describe(int which);
/* What compiled code gets from -enumerateKeysAndObjectsUsingBlock: on a PFPlainDictionary:
   "a1,b2", or "!Name: reason" if it raised. malloc'd. */
char *pf_enumeration_native_keys_and_objects(void);

#endif
