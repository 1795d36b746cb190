// Fix: -[SKCart totalCents] took the coupon's discount off twice (discountedSubtotalCents
// already has it off), so every discounted order was undercharged.
defineClass('SKCart', {
  totalCents: function () {
    return self.discountedSubtotalCents() + self.taxCents();
  }
});
