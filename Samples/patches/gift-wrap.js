// New: gift wrapping went live after 1.4.0 shipped. The checkout screen offers it to a cart
// that responds to -giftWrapFeeCents; this adds that method (id-typed: the number arrives
// in Objective-C as an NSNumber).
defineClass('SKCart', {
  giftWrapFeeCents: function () {
    return self.itemCount() * 150;   // $1.50 an item
  }
});
