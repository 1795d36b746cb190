/* The C entry points of include/ShopKit.h. Each runs in its own autorelease pool and catches
   every NSException: an uncaught one would abort the process, and the sample must show the bug
   (a crashing screen) and keep running. */
#import "ShopKit.h"
#import "SKCart.h"
#import "SKCartScreen.h"
#import "SKCatalogScreen.h"
#import "SKCheckoutScreen.h"
#import "SKDisplay.h"
#import "SKProductScreen.h"
#include <stdlib.h>
#include <string.h>

/* What the app's crash reporter would log; here the app goes on. */
static void SKShowCrash(NSException *exception)
{
    [SKDisplay showFormat:@"!! screen crashed: %@: %@", [exception name], [exception reason]];
}

void sk_show_catalog(void)
{
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    [SKDisplay show:@"-- catalog --"];
    @try {
        [SKCatalogScreen show];
    } @catch (NSException *exception) {
        SKShowCrash(exception);
    }
    [pool release];
}

void sk_show_checkout(void)
{
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    [SKDisplay show:@"-- checkout --"];
    @try {
        [SKCheckoutScreen showCart:[SKCart sampleCart]];
    } @catch (NSException *exception) {
        SKShowCrash(exception);
    }
    [pool release];
}

int sk_open_product(const char *sku)
{
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    int shown = 0;
    @try {
        shown = [SKProductScreen openSKU:sku ? [NSString stringWithUTF8String:sku] : nil] ? 1 : 0;
    } @catch (NSException *exception) {
        SKShowCrash(exception);
        shown = 1;  // the screen was opened, then crashed
    }
    [pool release];
    return shown;
}

int sk_open_cart(void)
{
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    @try {
        [SKCartScreen showCart:[SKCart sampleCart]];
    } @catch (NSException *exception) {
        SKShowCrash(exception);
    }
    [pool release];
    return 1;
}

char *sk_take_display(void)
{
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    char *text = NULL;
    @try {
        text = strdup([[SKDisplay take] UTF8String]);
    } @catch (NSException *exception) {
        text = strdup("");
    }
    [pool release];
    return text;
}
