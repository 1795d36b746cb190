/* PFGeometry: struct arguments and returns — NSRect, NSPoint, NSSize, NSRange (GNUstep:
   CGFloat = double, NSUInteger = unsigned long) and two custom structs a script must
   declare with defineStruct: PFPadded {char; double; short} (alignment padding, 24 bytes)
   and PFPair {int; float} (8 bytes, passed in one register). The C mirrors below have
   the same layout. Each pf_geometry_* function calls the method natively. */
#ifndef PF_STRUCTS_FIXTURE_H
#define PF_STRUCTS_FIXTURE_H

typedef struct { double x, y, width, height; } PFRectC;
typedef struct { double x, y; } PFPointC;
typedef struct { double width, height; } PFSizeC;
typedef struct { unsigned long location, length; } PFRangeC;
typedef struct { char c; double d; short s; } PFPaddedC;
typedef struct { int i; float f; } PFPairC;

PFRectC pf_geometry_echo_rect(PFRectC r);          /* -echoRect: */
PFPointC pf_geometry_echo_point(PFPointC p);       /* -echoPoint: */
PFSizeC pf_geometry_echo_size(PFSizeC s);          /* -echoSize: */
PFRangeC pf_geometry_echo_range(PFRangeC r);       /* -echoRange: */
PFPaddedC pf_geometry_echo_padded(PFPaddedC p);    /* -echoPadded: */
PFPairC pf_geometry_echo_pair(PFPairC p);          /* -echoPair: */
/* -offsetRect:by: (two struct arguments). */
PFRectC pf_geometry_offset_rect(PFRectC r, PFPointC by);
/* -area:scaledBy: (struct + double, returns double). */
double pf_geometry_area(PFRectC r, double factor);
/* -describePadded: (unpatched: "c=%d d=%g s=%d"). */
char *pf_geometry_describe_padded(PFPaddedC p);
/* sizeof(PFPadded), for comparison with a script's sizeof("PFPadded"). */
unsigned long pf_geometry_padded_size(void);

#endif
