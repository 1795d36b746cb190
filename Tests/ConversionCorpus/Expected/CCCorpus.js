// Converted from CCCorpus.m by patchctl convert.
require('NSArray, NSDictionary, NSMutableArray, NSMutableString, NSNumber, NSString');
var $isSet = function (v) { return v !== false && v !== null && v !== undefined; };
defineClass('CCCorpus', {
  dealloc: function () {
    self.setValue_forKey(null, '_name');
    self.setValue_forKey(null, '_log');
    self.super().dealloc();
  },
  describe: function () {
    return NSString.stringWithFormat('corpus %@ %@', self.name(), self.count());
  },
  messageSends: function () {
    var s = NSString.alloc().initWithString('abc');
    var upper = s.uppercaseString().stringByAppendingString(NSString.stringWithFormat('-%@', 'x'));
    return upper.lowercaseString().stringByAppendingString(self.class().kind());
  },
  properties: function () {
    self.setCount(3);
    self.setCount(self.count() + 2);
    self.setCount(self.count() + 1);
    self.setName('box');
    return NSString.stringWithFormat('%@:%@:%@', self.name(), self.count(), self.name().length());
  },
  literals: function () {
    var a = NSArray.arrayWithArray(['x', 1, 2.5, true]);
    var d = NSDictionary.dictionaryWithObjects_forKeys(['v', (3 + 4)], ['k', 'n']);
    var c = 65;
    var yes = true;
    var no = false;
    var none = false;
    var s = NSString.stringWithString('text');
    return NSString.stringWithFormat('%@ %@ %@ %@ %@ %@ %@ %@', a.count(), d.objectForKey('k'), d.objectForKey('n'), String.fromCharCode(c), (yes ? 1 : 0), (no ? 1 : 0), (!$isSet(none)) ? 'nil' : 'set', s.length());
  },
  blocks: function (items) {
    var sum = 0;
    var index = 0;
    for (var $list1 = items.objectEnumerator().allObjects(), $i1 = 0, item; $i1 < $list1.count(); $i1++) {
      item = $list1.objectAtIndex($i1);
      sum += self.apply_to(block('NSInteger, NSInteger, NSString *', function (v, tag) {
        return v * tag.length();
      }), Math.trunc(Number(item)) * (++index));
    }
    var join = block('NSString *, NSString *, NSInteger', function (prefix, n) {
        return NSString.stringWithFormat('%@=%@', prefix, n);
      });
    return join(NSString.stringWithString('sum'), sum);
  },
  apply_to: function (function_, value) {
    return function_(value, NSString.stringWithString('ab')) + 1;
  },
  structs: function () {
    var r = {x: 1, y: 2, width: 30, height: 40};
    var moved = Object.assign({}, r);
    moved.x = 10;
    var size = Object.assign({}, {width: r.width, height: r.height});
    var range = {location: 2, length: 3};
    var part = NSString.stringWithString('hello world').substringWithRange({location: 6, length: 5});
    return NSString.stringWithFormat('%@ %@ %@ %@ %@ %@', r.x.toFixed(1), moved.x.toFixed(1), (size.width + size.height).toFixed(1), r.height.toFixed(1), (range.location + range.length), part);
  },
  controlFlow: function (n) {
    if (n < 0) {
      return NSString.stringWithString('negative');
    } else if (n == 0) {
      return NSString.stringWithString('zero');
    }
    var out = NSMutableString.string();
    for (var i = 0; i < n; i++) {
      if (i == 1) {
        continue;
      }
      if (i > 5) {
        break;
      }
      out.appendFormat('%@,', i);
    }
    var j = n;
    while (j > 0) {
      j -= 2;
    }
    do {
      j++;
    } while (j < 3);
    for (var $list1 = NSDictionary.dictionaryWithObjects_forKeys([1], ['a']).keyEnumerator().allObjects(), $i1 = 0, key; $i1 < $list1.count(); $i1++) {
      key = $list1.objectAtIndex($i1);
      out.appendString(key);
    }
    for (var $list2 = NSArray.arrayWithArray([7, 8]).objectEnumerator().allObjects(), $i2 = 0, v; $i2 < $list2.count(); $i2++) {
      v = $list2.objectAtIndex($i2);
      out.appendFormat('%@', v);
    }
    switch (n) {
      case 1:
        out.appendString('one');
      case 2:
        out.appendString('two');
        break;
      case 5:
        out.appendString('five');
        break;
      default:
        out.appendString('many');
    }
    return NSString.stringWithFormat('%@ j=%@ %@', out, j, (n % 2) ? 'odd' : 'even');
  },
  operators_by: function (a, b) {
    var q = Math.trunc(a / b);
    var r = a % b;
    var bits = ((a & 15) | (b << 2)) ^ 1;
    var shifted = a >> 1;
    var ratio = a / b;
    var truncated = Math.trunc(ratio);
    var x = 5;
    x *= 3;
    x -= 1;
    x = Math.trunc(x / 4);
    x <<= 1;
    var both = !!((a > 0) && (b > 0));
    var either = !!((a < 0) || (b < 0));
    var m = (((a < b) ? a : b) * 10) + ((a > b) ? a : b);
    return NSString.stringWithFormat('%@ %@ %@ %@ %@ %@ %@ %@ %@ %@ %@ %@', q, r, bits, shifted, ratio.toFixed(3), truncated, x, (both ? 1 : 0), (either ? 1 : 0), m, ~a, (!both ? 1 : 0));
  },
  formats: function (n) {
    return NSString.stringWithFormat('[%@][%@][%@][%@][%@][%@][%@][%@][%@|][%@][%%][%@]', String(n).padStart(5), String(n).padEnd(5), (function (t) { var neg = t.charAt(0) === '-'; var d = neg ? t.substring(1) : t; return (neg ? '-' : '') + d.padStart(5 - (neg ? 1 : 0), '0'); })(String(n)), (n >>> 0).toString(16), (n >>> 0).toString(16).toUpperCase(), (n / 3).toFixed(2), (n * 1.5).toFixed(3).padStart(8), 'cstr', 'ab'.padEnd(6), String.fromCharCode((97 + (n % 26))), ((n >= 0 ? '+' : '') + String(n)));
  },
  casts: function (value) {
    return (Math.trunc(value) + Math.trunc((value * 2))) + Math.trunc(Number(NSNumber.numberWithDouble(value)));
  },
  instanceVariables: function (add) {
    self.setValue_forKey(self.valueForKey('_total') + add, '_total');
    if (!self.valueForKey('_log')) {
      self.setValue_forKey(NSMutableArray.new(), '_log');
    }
    self.valueForKey('_log').addObject('entry');
    return (self.valueForKey('_total') * 100) + self.valueForKey('_log').count();
  },
  enumsAndTernary: function (shape) {
    var next = (shape == 0) ? 5 : 6;
    return NSString.stringWithFormat('%@->%@ %@', shape, next, (shape > 0) ? 'round' : 'square');
  },
  isLong: function (text) {
    return !!((text.length() > 3) && (!text.hasPrefix('x')));
  },
  average: function (numbers) {
    if (numbers.count() == 0) {
      return 0;
    }
    var sum = 0;
    for (var $list1 = numbers.objectEnumerator().allObjects(), $i1 = 0, n; $i1 < $list1.count(); $i1++) {
      n = $list1.objectAtIndex($i1);
      sum += Number(n);
    }
    return sum / numbers.count();
  },
  unconvertible: function (n) {
    var values = (function () { throw new Error('patchctl convert: not converted: a C array (a patch has no C memory) (CCCorpus.m:165:21)'); })();
    var p = values;
    (function () { throw new Error('patchctl convert: not converted: pointer arithmetic (CCCorpus.m:167:5)'); })();
    throw new Error('patchctl convert: not converted: @try/@catch: an Objective-C exception can\'t be caught in a patch (CCCorpus.m:168:5)');
    throw new Error('patchctl convert: not converted: a goto label has no equivalent in JavaScript (CCCorpus.m:173:1)');
    return NSString.stringWithFormat('%@', n);
  }
}, {
  kind: function () {
    return NSString.stringWithString('corpus');
  }
});
defineClass('CCCorpusChild', {
  describe: function () {
    return NSString.stringWithString('child:').stringByAppendingString(self.super().describe());
  }
}, {
  kind: function () {
    return self.super().kind().uppercaseString();
  }
});
