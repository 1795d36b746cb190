#import "PFSupport.h"
#import "PFStructsFixture.h"

/* Named struct tags, so the type encodings carry the names scripts declare:
   {PFPadded=cds} and {PFPair=if}. */
typedef struct PFPadded { char c; double d; short s; } PFPadded;
typedef struct PFPair { int i; float f; } PFPair;

@interface PFGeometry : NSObject
- (NSRect)echoRect:(NSRect)r;
- (NSPoint)echoPoint:(NSPoint)p;
- (NSSize)echoSize:(NSSize)s;
- (NSRange)echoRange:(NSRange)r;
- (PFPadded)echoPadded:(PFPadded)p;
- (PFPair)echoPair:(PFPair)p;
- (NSRect)offsetRect:(NSRect)r by:(NSPoint)p;
- (double)area:(NSRect)r scaledBy:(double)factor;
- (NSRect)rectWithX:(double)x y:(double)y width:(double)w height:(double)h;
- (NSString *)describeRect:(NSRect)r;
- (NSString *)describePadded:(PFPadded)p;
- (NSString *)describePair:(PFPair)p;
- (PFPadded)makePaddedC:(int)c d:(double)d s:(int)s;
@end

@implementation PFGeometry
- (NSRect)echoRect:(NSRect)r { return r; }
- (NSPoint)echoPoint:(NSPoint)p { return p; }
- (NSSize)echoSize:(NSSize)s { return s; }
- (NSRange)echoRange:(NSRange)r { return r; }
- (PFPadded)echoPadded:(PFPadded)p { return p; }
- (PFPair)echoPair:(PFPair)p { return p; }
- (NSRect)offsetRect:(NSRect)r by:(NSPoint)p
{
    return NSMakeRect(r.origin.x + p.x, r.origin.y + p.y, r.size.width, r.size.height);
}
- (double)area:(NSRect)r scaledBy:(double)factor { return r.size.width * r.size.height * factor; }
- (NSRect)rectWithX:(double)x y:(double)y width:(double)w height:(double)h { return NSMakeRect(x, y, w, h); }
- (NSString *)describeRect:(NSRect)r
{
    return [NSString stringWithFormat:@"%g,%g,%g,%g", r.origin.x, r.origin.y, r.size.width, r.size.height];
}
- (NSString *)describePadded:(PFPadded)p
{
    return [NSString stringWithFormat:@"c=%d d=%g s=%d", p.c, p.d, p.s];
}
- (NSString *)describePair:(PFPair)p
{
    return [NSString stringWithFormat:@"i=%d f=%g", p.i, p.f];
}
- (PFPadded)makePaddedC:(int)c d:(double)d s:(int)s
{
    PFPadded p = { (char)c, d, (short)s };
    return p;
}
@end

static NSRect PFToRect(PFRectC r) { return NSMakeRect(r.x, r.y, r.width, r.height); }
static PFRectC PFFromRect(NSRect r) { PFRectC c = { r.origin.x, r.origin.y, r.size.width, r.size.height }; return c; }

PFRectC pf_geometry_echo_rect(PFRectC r)
{
    PF_POOL_BEGIN
        return PFFromRect([[[PFGeometry new] autorelease] echoRect:PFToRect(r)]);
    PF_POOL_END
}

PFPointC pf_geometry_echo_point(PFPointC p)
{
    PF_POOL_BEGIN
        NSPoint back = [[[PFGeometry new] autorelease] echoPoint:NSMakePoint(p.x, p.y)];
        PFPointC c = { back.x, back.y };
        return c;
    PF_POOL_END
}

PFSizeC pf_geometry_echo_size(PFSizeC s)
{
    PF_POOL_BEGIN
        NSSize back = [[[PFGeometry new] autorelease] echoSize:NSMakeSize(s.width, s.height)];
        PFSizeC c = { back.width, back.height };
        return c;
    PF_POOL_END
}

PFRangeC pf_geometry_echo_range(PFRangeC r)
{
    PF_POOL_BEGIN
        NSRange back = [[[PFGeometry new] autorelease] echoRange:NSMakeRange(r.location, r.length)];
        PFRangeC c = { back.location, back.length };
        return c;
    PF_POOL_END
}

PFPaddedC pf_geometry_echo_padded(PFPaddedC p)
{
    PF_POOL_BEGIN
        PFPadded in = { p.c, p.d, p.s };
        PFPadded back = [[[PFGeometry new] autorelease] echoPadded:in];
        PFPaddedC c = { back.c, back.d, back.s };
        return c;
    PF_POOL_END
}

PFPairC pf_geometry_echo_pair(PFPairC p)
{
    PF_POOL_BEGIN
        PFPair in = { p.i, p.f };
        PFPair back = [[[PFGeometry new] autorelease] echoPair:in];
        PFPairC c = { back.i, back.f };
        return c;
    PF_POOL_END
}

PFRectC pf_geometry_offset_rect(PFRectC r, PFPointC by)
{
    PF_POOL_BEGIN
        return PFFromRect([[[PFGeometry new] autorelease] offsetRect:PFToRect(r) by:NSMakePoint(by.x, by.y)]);
    PF_POOL_END
}

double pf_geometry_area(PFRectC r, double factor)
{
    PF_POOL_BEGIN
        return [[[PFGeometry new] autorelease] area:PFToRect(r) scaledBy:factor];
    PF_POOL_END
}

char *pf_geometry_describe_padded(PFPaddedC p)
{
    PF_POOL_BEGIN
        PFPadded in = { p.c, p.d, p.s };
        return PFCopyString([[[PFGeometry new] autorelease] describePadded:in]);
    PF_POOL_END
}

unsigned long pf_geometry_padded_size(void) { return sizeof(PFPadded); }
