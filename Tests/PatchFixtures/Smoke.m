#import <Foundation/Foundation.h>
#include "PatchFixtures.h"
@interface PFSmokeObj : NSObject
- (int)twice:(int)v;
@end
@implementation PFSmokeObj
- (int)twice:(int)v { return v * 2; }
@end
int PFSmoke(void) { PFSmokeObj *o = [PFSmokeObj new]; int r = [o twice:21]; [o release]; return r; }
