/* PFHolder: Objective-C properties (title: NSString, frame: NSRect, count: int,
   child: id) whose accessors scripts call; scripts may also declare JS properties on it
   with defineClass('PFHolder', ['name', ...], ...). -summary describes the native state:
   "title=<title> count=<count> frame=<x>,<y>,<w>,<h> child=<description>". */
#ifndef PF_PROPERTIES_FIXTURE_H
#define PF_PROPERTIES_FIXTURE_H

/* Sets the Objective-C properties natively on `holder` (a PFHolder). */
void pf_holder_set(void *holder, const char *title, int count, double x, double y, double w, double h);

#endif
