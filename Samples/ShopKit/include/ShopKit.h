/* ShopKit: the Objective-C half of the sample shop app (products, cart, checkout, screens).
   The Swift host reaches it through these plain C functions (Swift on Linux imports no
   Objective-C). Screens write the lines they show into the display; sk_take_display()
   hands them over. No function lets an NSException escape: a screen that raises is shown
   as a crash report line and the app keeps running. */
#ifndef SHOPKIT_H
#define SHOPKIT_H

/* The catalog screen: one row per product. */
void sk_show_catalog(void);

/* The checkout screen for the sample cart (2 mugs, 1 T-shirt, coupon SPRING10). */
void sk_show_checkout(void);

/* Deep-link targets. Each shows its screen and returns 1, or shows nothing and returns 0
   when it has nothing to show (sku NULL or unknown). */
int sk_open_product(const char *sku);
int sk_open_cart(void);

/* The lines shown since the last call, each ending in "\n" (malloc'd: free() it). */
char *sk_take_display(void);

#endif
