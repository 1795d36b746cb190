// Fix: a product whose feed record has no name made -[SKProduct displayName] nil, and the
// catalog screen crashed putting nil into its row. Fall back to a title made from the SKU.
defineClass('SKProduct', {
  displayName: function () {
    var name = self.ORIGdisplayName();   // nil arrives as false
    return name ? name : 'Item ' + self.sku().toJS();
  }
});
