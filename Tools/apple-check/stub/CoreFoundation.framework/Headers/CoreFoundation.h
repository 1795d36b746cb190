/* CoreFoundation for `make apple-check` only: JavaScriptCore's WebKitAvailability.h includes it on
   Apple platforms and uses none of its declarations; nothing in the package calls CoreFoundation.
   Empty on purpose: a file that did use CoreFoundation fails here (a false alarm), never passes
   wrongly. */
#ifndef PE_APPLE_CHECK_COREFOUNDATION_H
#define PE_APPLE_CHECK_COREFOUNDATION_H
#endif
