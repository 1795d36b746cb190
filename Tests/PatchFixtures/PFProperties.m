#import "PFSupport.h"
#import "PFPropertiesFixture.h"

@interface PFHolder : NSObject
{
    NSString *_title;
    NSRect _frame;
    int _count;
    id _child;
}
- (NSString *)title;
- (void)setTitle:(NSString *)title;
- (NSRect)frame;
- (void)setFrame:(NSRect)frame;
- (int)count;
- (void)setCount:(int)count;
- (id)child;
- (void)setChild:(id)child;
- (NSString *)summary;
@end

@implementation PFHolder
- (void)dealloc
{
    [_title release];
    [_child release];
    [super dealloc];
}
- (NSString *)title { return _title ? _title : @"untitled"; }
- (void)setTitle:(NSString *)title { [_title autorelease]; _title = [title copy]; }
- (NSRect)frame { return _frame; }
- (void)setFrame:(NSRect)frame { _frame = frame; }
- (int)count { return _count; }
- (void)setCount:(int)count { _count = count; }
- (id)child { return _child; }
- (void)setChild:(id)child { [_child autorelease]; _child = [child retain]; }
- (NSString *)summary
{
    return [NSString stringWithFormat:@"title=%@ count=%d frame=%g,%g,%g,%g child=%@", [self title], _count,
            _frame.origin.x, _frame.origin.y, _frame.size.width, _frame.size.height, PFDescribe(_child)];
}
@end

void pf_holder_set(void *holder, const char *title, int count, double x, double y, double w, double h)
{
    PF_POOL_BEGIN
        PFHolder *object = (PFHolder *)holder;
        [object setTitle:[NSString stringWithUTF8String:title]];
        [object setCount:count];
        [object setFrame:NSMakeRect(x, y, w, h)];
    PF_POOL_END
}
