#import "PFSupport.h"

@interface PFProbe : NSObject
+ (void)record:(NSString *)tag;
@end

/* An object whose -dealloc leaves a trace in PFProbe ("native-dealloc"), so tests can
   see a patched dealloc run — and the original after it — when native code releases it. */
@interface PFDisposable : NSObject
@end

@implementation PFDisposable
- (void)dealloc
{
    [PFProbe record:@"native-dealloc"];
    [super dealloc];
}
@end
