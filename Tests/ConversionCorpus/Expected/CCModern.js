// Converted from CCModern.m by patchctl convert.
require('NSError, NSMutableArray, NSMutableDictionary, NSString');
defineProtocol('CCModernConvertedMethods', {
  check: { paramsType: 'NSError **', returnType: 'BOOL' },
  scaled_by_flag: { paramsType: 'NSInteger, CGFloat, BOOL', returnType: 'NSInteger' },
  transformed: { paramsType: 'NSInteger', returnType: 'NSInteger' }
});
defineClass('CCModern <CCModernConvertedMethods>', {
  reload: function () {
    var $blockSelf = self;
    var weakSelf = __weak(self);
    dispatch_async_global_queue(function () {
        var loaded = NSString.stringWithFormat('%@ items', 3);
        dispatch_async_main(function () {
            var strongSelf = __strong(weakSelf);
            strongSelf.setStatus(loaded);
          });
      });
    dispatch_after(Math.trunc((1.5 * 1000000000)) / 1000000000, function () {
        $blockSelf.setStatus('late');
      });
  },
  subscripts: function () {
    var a = NSMutableArray.arrayWithObjects('p', 'q');
    var d = NSMutableDictionary.dictionary();
    d.setObject_forKeyedSubscript(a.objectAtIndexedSubscript(1), 'key');
    a.setObject_atIndexedSubscript('z', 0);
    return NSString.stringWithFormat('%@%@', a.objectAtIndexedSubscript(0), d.objectForKeyedSubscript('key'));
  },
  check: function (error) {
    console.log(NSString.stringWithFormat('%@ checking %@', '-[CCModern check:]', self.status()).toJS());
    if (error) {
      assignPointer(error, NSError.errorWithDomain_code_userInfo('corpus', 2, false));
    }
    return false;
  },
  scaled_by_flag: function (value, factor, flag) {
    {
      return flag ? Math.trunc((value * factor)) : value;
    }
  },
  transformed: function (value) {
    var twice = block('NSInteger, NSInteger', function (v) {
        return v * 2;
      });
    var result = twice(value);
    return result;
  }
});
