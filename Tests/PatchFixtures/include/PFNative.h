/* Generic native messaging helpers: create objects, send messages exactly as compiled
   Objective-C code would (through a message lookup: PF_LOOKUP), and inspect the runtime.
   Plain C so Swift can import it. Every returned char * is malloc'd: free() it.
   A string result that starts with "!" reports an NSException caught at the
   boundary: "!Name: reason". */
#ifndef PF_NATIVE_H
#define PF_NATIVE_H

/* [[NSClassFromString(name) alloc] init], retained (+1); NULL if the class is missing
   or init raised. Release with pf_release. */
void *pf_new(const char *className);
void pf_retain(void *object);
void pf_release(void *object);
unsigned long pf_retain_count(void *object);
/* Zeroes the 256 KB of stack below the caller's frame. JavaScriptCore's collector treats every
   word on the collecting thread's stack as a possible reference, and the frames of a collection
   reuse the memory deep calls wrote before: one stale slot pointing at a box keeps the box, and
   whatever it owns, alive collection after collection. Call it right before collecting. */
void pf_scrub_stack(void);

/* Runtime introspection. */
int pf_class_exists(const char *className);
char *pf_superclass_name(const char *className);         /* NULL if none */
char *pf_class_name_of(void *object);
int pf_is_kind_of(void *object, const char *className);
int pf_responds(void *object, const char *selector);
int pf_instances_respond(const char *className, const char *selector);
int pf_class_responds(const char *className, const char *selector);
int pf_protocol_exists(const char *protocolName);
int pf_conforms(const char *className, const char *protocolName);
/* Type encoding of an instance (classMethod = 0) or class method, offsets stripped
   ("v@:@"); NULL when the class has no such method. */
char *pf_method_types(const char *className, const char *selector, int classMethod);

/* Type encoding a protocol declares for a selector (instanceMethod = 1 for "-",
   0 for "+"), required or optional, offsets stripped; NULL if not declared. */
char *pf_protocol_method_types(const char *protocolName, const char *selector, int instanceMethod);

/* The canonical description of an object (see PFSupport.h): nil, null, "str", 42,
   [a, b], {k: v}, class:Name, <Class>. */
char *pf_describe(void *object);
int pf_same_object(void *a, void *b);

/* Sends - (id)selector... natively and describes the result. */
char *pf_send(void *object, const char *selector);
char *pf_send_obj(void *object, const char *selector, void *argument);
char *pf_send_str(void *object, const char *selector, const char *argument);
char *pf_send_str_str(void *object, const char *selector, const char *a, const char *b);
char *pf_send_class(const char *className, const char *selector);
char *pf_send_class_str(const char *className, const char *selector, const char *argument);
/* Sends - (void)selector:(id) natively; returns NULL, or "!Name: reason" if it raised. */
char *pf_send_void_obj(void *object, const char *selector, void *argument);
char *pf_send_void_str(void *object, const char *selector, const char *argument);
/* Creates an instance of className, sends - (id)selector, describes the result. */
char *pf_new_send(const char *className, const char *selector);
/* Sends - (id)selector and returns the result itself (retained, +1) instead of its description. */
void *pf_send_retained(void *object, const char *selector);
/* Sends - (double)selector:(double):(int) natively (for methods JS added with declared types). */
double pf_send_double_double_int(void *object, const char *selector, double a, int b, int *raised);
/* Sends - (int)selector:(id) natively with an NSString argument. */
int pf_send_int_str(void *object, const char *selector, const char *argument, int *raised);

/* A process-wide table native code and scripts share: scripts read it with
   require('PFRegistry').objectForKey('key'). */
void pf_registry_set(const char *key, void *object);
void *pf_registry_get(const char *key);                /* not retained */
void pf_registry_remove(const char *key);

/* Makes NSString / NSArray / NSDictionary / NSMutableString / NSObject / NSNumber
   samples ("string", "array", "dict", "mutableString", "object", "number"), retained. */
void *pf_make_sample(const char *kind);

#endif
