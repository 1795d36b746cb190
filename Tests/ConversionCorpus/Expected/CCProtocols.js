// Converted from CCProtocols.m by patchctl convert.
require('NSString');
require('JPEngine').addExtensions(['JPNumber']);
var $object = function (v) { return typeof v === 'number' ? OCNumber('NSNumber', Number.isInteger(v) ? 'numberWithLongLong:' : 'numberWithDouble:', [v]) : v === true ? OCNumber('NSNumber', 'numberWithBool:', [true]) : v; };
defineClass('CCProtocolShape', {
  name: function () {
    return NSString.stringWithString('shape');
  },
  copyWithZone: function (zone) {
    return self;
  }
});
defineClass('CCProtocols', {
  conformances: function (object) {
    return NSString.stringWithFormat('%@ %@ %@ %@', ($object(object).conformsToProtocol(protocol('NSCopying')) ? 1 : 0), ($object(object).conformsToProtocol(protocol('CCNamed')) ? 1 : 0), ($object(object).class().conformsToProtocol(protocol('CCNamed')) ? 1 : 0), (CCProtocolShape.conformsToProtocol(protocol('NSCopying')) ? 1 : 0));
  },
  object_adopts: function (object, protocol_) {
    return $object(object).conformsToProtocol(protocol_);
  },
  passed: function (object) {
    var named = self.object_adopts(object, protocol('CCNamed'));
    return NSString.stringWithFormat('%@ %@', (named ? 1 : 0), (self.object_adopts(object, protocol('NSCopying')) ? 1 : 0));
  },
  protocolFor: function (kind) {
    return (kind == 0) ? protocol('NSCopying') : protocol('CCNamed');
  },
  returned: function (object) {
    var named = self.protocolFor(1);
    var name = $object(object).conformsToProtocol(named) ? $object(object).name() : NSString.stringWithString('-');
    return NSString.stringWithFormat('%@ %@', name, ($object(object).conformsToProtocol(self.protocolFor(0)) ? 1 : 0));
  }
});
