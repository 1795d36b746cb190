#import <Foundation/Foundation.h>
#include "PatchRuntime.h"
int PESmoke(void) {
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    NSString *s = [NSString stringWithFormat:@"%d-%@", 42, @"x"];
    void (^blk)(int) = ^(int v) { (void)v; };
    blk(1);
    int n = (int)[s length];
    [pool drain];
    return n;
}
