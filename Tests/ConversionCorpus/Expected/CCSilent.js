// Converted from CCSilent.m by patchctl convert.
require('NSArray, NSDictionary, NSError, NSMutableArray, NSNumber, NSScanner, NSString');
require('JPEngine').addExtensions(['JPNumber']);
var $isSet = function (v) { return v !== false && v !== null && v !== undefined; };
var $object = function (v) { return typeof v === 'number' ? OCNumber('NSNumber', Number.isInteger(v) ? 'numberWithLongLong:' : 'numberWithDouble:', [v]) : v === true ? OCNumber('NSNumber', 'numberWithBool:', [true]) : v; };
defineProtocol('CCSilentConvertedMethods', {
  literalsEverywhere_flag: { paramsType: 'NSArray *, BOOL', returnType: 'NSString *' },
  boxedReceivers: { paramsType: 'NSInteger', returnType: 'NSString *' },
  fail: { paramsType: 'NSError **', returnType: 'BOOL' },
  refusedCounter: { paramsType: '', returnType: 'NSInteger' },
  refusedVariadic: { paramsType: '', returnType: 'NSInteger' }
});
var NSString_ccSilentTagged_tag = NSString.stringWithString('tag:');   // static in -[NSString ccSilentTagged]
defineClass('CCSilent <CCSilentConvertedMethods>', {
  log: function (format) {
    var ap = {};
    (function () { throw new Error('patchctl convert: not converted: compiler builtin __builtin_va_start: variadic C arguments can\'t be read in a patch (CCSilent.m:27:5)'); })();
    var s = (function () { throw new Error('patchctl convert: not converted: initWithFormat:arguments: takes a va_list: variadic C arguments can\'t be forwarded from a patch (CCSilent.m:28:20)'); })();
    (function () { throw new Error('patchctl convert: not converted: compiler builtin __builtin_va_end: variadic C arguments can\'t be read in a patch (CCSilent.m:29:5)'); })();
    return NSString.stringWithString('log: ').stringByAppendingString(s);
  },
  sum: function (first) {
    var ap = {};
    (function () { throw new Error('patchctl convert: not converted: compiler builtin __builtin_va_start: variadic C arguments can\'t be read in a patch (CCSilent.m:36:5)'); })();
    var total = 0;
    for (var v = first; v != 0; v = (function () { throw new Error('patchctl convert: not converted: va_arg: variadic C arguments can\'t be read in a patch (CCSilent.m:38:43)'); })()) {
      total += v;
    }
    (function () { throw new Error('patchctl convert: not converted: compiler builtin __builtin_va_end: variadic C arguments can\'t be read in a patch (CCSilent.m:39:5)'); })();
    return total;
  },
  variadicCalls: function (url) {
    var a = self.log(NSString.stringWithFormat('fetch %@ at %@%% [%@]', url, 7, String(self.priority()).padStart(5)).stringByReplacingOccurrencesOfString_withString('%', '%%'));
    var b = self.log(NSString.stringWithFormat('plain 100%%').stringByReplacingOccurrencesOfString_withString('%', '%%'));
    return NSString.stringWithFormat('%@ | %@', a, b);
  },
  literalsEverywhere_flag: function (items, flag) {
    var list = items || NSArray.arrayWithArray([]);
    var n = 0;
    for (var $list1 = list.objectEnumerator().allObjects(), $i1 = 0, x; $i1 < $list1.count(); $i1++) {
      x = $list1.objectAtIndex($i1);
      n += $object(x).description().length();
    }
    var none = false;
    var shown = none || NSString.stringWithString('none');
    var d = false;
    var dict = d || NSDictionary.dictionaryWithObjects_forKeys(['v'], ['k']);
    var lengths = ((((flag ? NSString.stringWithString('yes') : NSString.stringWithString('no!')).length() + NSString.stringWithString('abc').length()) + NSArray.arrayWithArray([]).count()) + NSDictionary.dictionaryWithObjects_forKeys([], []).count()) + NSArray.arrayWithArray(['a', 'b']).count();
    var nested = NSArray.arrayWithArray([['x'], NSDictionary.dictionaryWithObjects_forKeys([1], ['y'])]);
    return NSString.stringWithFormat('%@ %@ %@ %@ %@ %@ %@', n, shown.uppercaseString(), dict.objectForKey('k'), lengths, $object(nested.objectAtIndex(0)).count(), $object(nested.lastObject()).objectForKey('y'), (items || NSArray.arrayWithArray(['d'])).componentsJoinedByString('+'));
  },
  boxedReceivers: function (m) {
    self.setPriority(m);
    var h = OCNumber('NSNumber', 'numberWithInteger:', [self.priority()]).hash();
    var order = OCNumber('NSNumber', 'numberWithInteger:', [m]).compare(3);
    var text = OCNumber('NSNumber', 'numberWithDouble:', [2.5]).description();
    var length = NSString.stringWithString('abc').length();
    var d = NSDictionary.dictionaryWithObjects_forKeys([m, 0], ['n', 'zero']);
    var k = d.objectForKey('n');
    var zero = d.objectForKey('zero');
    var kept = (function ($value1) { return $isSet($value1) ? $value1 : 5; })(zero);
    return NSString.stringWithFormat('%@ %@ %@ %@ %@ %@ %@ %@ %@', (h == $object(NSNumber.numberWithInteger(m)).hash() ? 1 : 0), order, text, length, $object(k).description(), ($object(k).isEqualToNumber(m) ? 1 : 0), String(Number(k)), kept, $isSet(zero) ? 1 : 0);
  },
  nilEverywhere: function (given) {
    var s = false;
    var c = s.copy();
    var len = s.length() + s.uppercaseString().length();
    var none = false;
    var one = NSArray.arrayWithObjects('only', false);
    var empty = NSArray.arrayWithObjects(false);
    var out = NSMutableArray.array();
    if (!s) {
      out.addObject('!s');
    }
    if (!s) {
      out.addObject('==nil');
    }
    if (given) {
      out.addObject('given');
    }
    if ($isSet(none)) {
      out.addObject('none?');
    }
    var zero = NSNumber.numberWithInteger(0);
    if ($isSet(zero)) {
      out.addObject('zero is set');
    }
    if ($isSet(zero) && (!(!$isSet(zero)))) {
      out.addObject('zero != nil');
    }
    var isSet = $isSet(zero);
    var fallback = self.pick(false);
    return NSString.stringWithFormat('%@ %@ %@ %@ %@ %@ %@ %@ %@', c, len, none, one.count(), empty.count(), out.componentsJoinedByString(','), (isSet ? 1 : 0), fallback, self.pick(given));
  },
  pick: function (value) {
    return value ? value.stringByAppendingString('!') : false;
  },
  captures: function () {
    var x = 1;
    var y = 1;
    var label = NSString.stringWithString('before');
    var show = (function (x, label) { return block('NSString *', function () {
        return NSString.stringWithFormat('%@ %@ %@', x, y, label);
      }); })(x, label);
    x = 2;
    y = 2;
    label = NSString.stringWithString('after');
    var add = (function (x) { return block('NSInteger, NSInteger', function (v) {
        return v + x;
      }); })(x);
    x = 10;
    return NSString.stringWithFormat('%@ / %@', show(), add(1));
  },
  pointerFormat: function (other) {
    return NSString.stringWithFormat('%p|%p', self, other);
  },
  scanned: function (text) {
    var scanner = NSScanner.scannerWithString(text);
    var head = NSString.stringWithString('none');
    var found = (function ($out1) { assignPointer($out1, head); var $result = scanner.scanUpToString_intoString('/', $out1); head = pval($out1); free($out1); return $result; })(malloc(8));
    var error = false;
    var ok = (function ($out2) { assignPointer($out2, error); var $result = self.fail($out2); error = pval($out2); free($out2); return $result; })(malloc(8));
    return NSString.stringWithFormat('%@ %@ %@ %@', (found ? 1 : 0), head, (ok ? 1 : 0), error.code());
  },
  fail: function (error) {
    if (error) {
      assignPointer(error, NSError.errorWithDomain_code_userInfo('corpus', 3, false));
    }
    return false;
  },
  constants: function () {
    return NSString.stringWithFormat('%@ %@ %@', NSString.stringWithString('silent-key'), NSString.stringWithString('silent-key').length(), 3);
  },
  externConstants: function () {
    return NSString.stringWithFormat('%@ %@ %@', externConstant('CCSilentExternKey', 'NSString *'), externConstant('CCSilentExternKey', 'NSString *').length(), externConstant('CCSilentExternLimit', 'NSInteger'));
  },
  refusedCounter: function () {
    return ++(function () { throw new Error('patchctl convert: not converted: global variable CCSilentCounter is the app\'s mutable state: a patch can\'t read or change it (keep such state in the patch, as a property of a class it defines, or reach it through a method of the app) (CCSilent.m:169:14)'); })();
  },
  refusedVariadic: function () {
    return (function () { throw new Error('patchctl convert: not converted: -sum: is variadic and not a format method: the engine passes extra arguments only to selectors ending in Format:/format: and Foundation\'s nil-terminated lists (call a non-variadic variant, or give the method a format attribute, NS_FORMAT_FUNCTION) (CCSilent.m:175:12)'); })();
  }
});
defineClass('CCSilent', {
  constantExpressions: function () {
    var options = 1 | 16;
    return NSString.stringWithFormat('%@ %@ %@', options, 1099511627776, (-3));
  }
});
defineClass('CCSilentDictionary', {
  storedCount: function () {
    return (function () { throw new Error('patchctl convert: not converted: instance variable _storage of CCSilentDictionary: a patch reaches instance variables through key-value coding, which NSDictionary answers itself (inherited, e.g. with its entries): reach the value through a method of the class (CCSilent.m:211:13)'); })().count();
  }
});
defineClass('NSString', {
  ccSilentTagged: function () {
    return NSString_ccSilentTagged_tag.stringByAppendingString(self);
  }
});
