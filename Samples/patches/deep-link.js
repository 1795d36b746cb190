// Fix: shop://product/<sku> opened nothing: the app's route handler reads the parameter
// 'id', but the pattern names it 'sku'. Replace the route with one that reads 'sku'.
routes.replace('/product/:sku', function (params) {
  return !!require('SKProductScreen').openSKU(params.sku);
}, { scheme: 'shop' });
