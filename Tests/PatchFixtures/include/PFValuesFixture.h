/* PFValueBox: objects crossing the bridge — NSString / NSArray / NSDictionary / NSNumber,
   nil, NSNull, identity. Scripts call its methods; these functions call them natively. */
#ifndef PF_VALUES_FIXTURE_H
#define PF_VALUES_FIXTURE_H

/* Native caller of -identityOf: (unpatched it returns nil). Creates a sample object of
   `kind` (see pf_make_sample), passes it, and reports: 1 = the very same object came
   back, 0 = a different object, -1 = nil. */
int pf_values_identity(const char *kind);
/* Native caller of -identityOf: with nil: the description of what came back. */
char *pf_values_identity_of_nil(void);
/* Native caller of -jsDictionary (unpatched: nil): "<Class is-a NSDictionary?> description". */
char *pf_values_js_dictionary(void);
/* Native caller of -wrap:label: (id, NSString *, unpatched "label:description"). */
char *pf_values_wrap(const char *label);

#endif
