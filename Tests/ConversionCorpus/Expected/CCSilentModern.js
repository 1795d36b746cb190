// Converted from CCSilentModern.m by patchctl convert.
require('NSString');
require('JPEngine').addExtensions(['JPNumber']);
var $object = function (v) { return typeof v === 'number' ? OCNumber('NSNumber', Number.isInteger(v) ? 'numberWithLongLong:' : 'numberWithDouble:', [v]) : v === true ? OCNumber('NSNumber', 'numberWithBool:', [true]) : v; };
defineProtocol('CCSilentModernConvertedMethods', {
  observe: { paramsType: 'id', returnType: 'void' },
  adder: { paramsType: 'NSInteger', returnType: 'id' },
  refusedBlockMessage: { paramsType: '', returnType: 'void' }
});
defineClass('CCSilentModern <CCSilentModernConvertedMethods>', {
  observe: function (target) {
    var $blockSelf = self;
    target = __weak(target);
    self.setHandler(block('void', function () {
        if (!!target.self()) {
          $blockSelf.setStatus($object(target).description());
        }
      }));
  },
  adder: function (n) {
    return block('NSInteger, NSInteger', function (v) {
        return v + n;
      });
  },
  refusedBlockMessage: function () {
    console.log(NSString.stringWithFormat('%@', (function () { throw new Error('patchctl convert: not converted: -description sent to a block (a block is a JS function in a patch; only copy, retain, autorelease and release convert) (NotCompiled/CCSilentModern.m:30:18)'); })()).toJS());
  }
});
