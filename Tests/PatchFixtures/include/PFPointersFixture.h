/* PFMemory: raw pointers (^v), C strings (*) and PFRecord {const char *name; int idx}
   records that only native code can read. Scripts pass them around as pointer boxes. */
#ifndef PF_POINTERS_FIXTURE_H
#define PF_POINTERS_FIXTURE_H

/* Native caller of -echoPointer: (unpatched: returns NULL) with a fresh record.
   1 = the same pointer came back and the record is intact, 0 = a different pointer,
   -1 = NULL. */
int pf_memory_echo_pointer(void);
/* Native caller of -echoChars: (unpatched: NULL) with "JSPatch": what came back, or NULL. */
char *pf_memory_echo_chars(void);
/* Native caller of -recordName: (char * → NSString; unpatched "name:<text>"). */
char *pf_memory_record_name(const char *text);

#endif
