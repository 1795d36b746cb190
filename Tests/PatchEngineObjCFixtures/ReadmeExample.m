/* README.md's Objective-C example: the lines between the markers are quoted there verbatim
   (PatchEngineObjCTests.testTheReadmeSnippetIsThisFile checks), and run by the tests as written. */
#import "PatchEngineObjCFixtures.h"
#import "Cart.h"

// README: begin
#import "PEPatchEngine.h"

BOOL applyFix(NSString *script) {
    [PEPatchEngine startEngine];                                            // [JPEngine startEngine]
    [PEPatchEngine setErrorHandler:^(NSError *error) { NSLog(@"patch: %@", error); }];   // JS errors in patched methods
    [PEPatchEngine setLogHandler:^(NSString *line) { NSLog(@"js: %@", line); }];         // console.log
    NSError *error = nil;
    if (![PEPatchEngine evaluateScript:script name:@"fix-total.js" error:&error]) {      // [JPEngine evaluateScript:]
        NSLog(@"%@", [error localizedDescription]);                        // fix-total.js:3:14: syntax error: …
        return NO;                                                          // the script was rolled back
    }
    return YES;
}

BOOL revertFix(void) {
    return [PEPatchEngine revertScriptNamed:@"fix-total.js" error:NULL];   // native callers see the original again
}
// README: end

bool POReadmeApplyUTF8(const char *script) {
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    BOOL ok = applyFix([NSString stringWithUTF8String:script]);
    [pool release];
    return ok;
}

bool POReadmeRevert(void) {
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    BOOL ok = revertFix();
    [pool release];
    return ok;
}

double POCartTotal(const char *coupon) {
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    Cart *cart = [[Cart new] autorelease];
    SEL setter = @selector(setCoupon:);
    if (coupon && [cart respondsToSelector:setter])
        [cart performSelector:setter withObject:[NSString stringWithUTF8String:coupon]];
    double total = [cart total];
    [pool release];
    return total;
}
