// JSPatch's engine object and extensions: `require('JPEngine')` with defineStruct and
// addExtensions, the extensions JSPatch ships (JPMemory, JPStructPointer, JPNumber, JPCFunction,
// JPBlock, JPCoreGraphics, JPUIKit and their parts), defineJSClass and autoConvertOCType.
// Loaded by runtime.js on the first use of any of them, not at engine start. Evaluates to a
// function that runtime.js calls once with the native bindings (N), the JSPatch-only native
// bindings (J) and the global object; it returns the surface and what the engine keeps.
//
// Every global an extension or defineJSClass defines goes through J.defineGlobal, which records
// it in the running script's transaction: reverting the script restores what was there before.
(function (N, J, global) {
  'use strict';

  function defineGlobal(name, value) { J.defineGlobal(name, value); return value; }

  // --- JPMemory -------------------------------------------------------------------------------------
  // malloc, free, pval, sizeof and assignPointer are the engine's own globals (runtime.js).
  // A block from malloc() knows its size: memset/memcpy/memmove past its end are refused.
  function JPMemory() {
    defineGlobal('memset', function (ptr, ch, n) { J.memset(ptr, Number(ch), Number(n)); });
    defineGlobal('memcpy', function (dest, src, n) { return J.memcpy(dest, src, Number(n), false); });
    defineGlobal('memmove', function (dest, src, n) { return J.memcpy(dest, src, Number(n), true); });
    // A pointer to a new word holding the pointer or object `value` (for NSInvocation's
    // setArgument:atIndex: and other void * parameters); free() it when done.
    defineGlobal('getPointer', function (value) { return J.getPointer(value); });
    defineGlobal('pvalBool', function (ptr) { return J.pvalBool(ptr); });
    // JSPatch kept objects read through pval() in a pool until this call; a box here holds its
    // object itself and lets go when collected, so there is nothing to release. Checked and kept
    // for the scripts that call it.
    defineGlobal('releaseTmpObj', function (ptr) { J.checkPointer(ptr, 'releaseTmpObj'); });
    defineGlobal('assignScalarTypePointer', function (ptr, value, type) { J.assignScalar(ptr, value, String(type)); });
    defineGlobal('autoreleasepool', function (fn) { return J.autoreleasepool(fn); });
  }

  // --- JPStructPointer ------------------------------------------------------------------------------
  function JPStructPointer() {
    // newStruct('CGRect', {x: 0, y: 0, width: 10, height: 10}): a malloc'd struct (free() it).
    defineGlobal('newStruct', function (name, value) { return J.newStruct(String(name), value); });
    defineGlobal('pvalStruct', function (name, ptr) { return J.pvalStruct(String(name), ptr); });
  }

  // --- JPNumber -------------------------------------------------------------------------------------
  // Numbers stay JS numbers when they cross; these keep an NSNumber (or a subclass such as
  // NSDecimalNumber) as an object, to send it messages.
  function JPNumber() {
    defineGlobal('OCNumber', function (className, selector, args) {
      return J.ocNumber(String(className), String(selector), args || []);
    });
    defineGlobal('toOCNumber', function (value) { return typeof value === 'number' ? J.toOCNumber(value) : null; });
    defineGlobal('toJSNumber', function (number) { return J.toJSNumber(number); });
  }

  // --- JPCoreGraphics / JPUIKit: geometry ----------------------------------------------------------
  // The geometry functions are defined here by the formulas Apple documents for them, on every
  // platform: CoreGraphics does not exist on Linux, and on Apple platforms binding the C symbols
  // would only add a crossing for the same arithmetic. Rects are the engine's canonical flat
  // shape {x, y, width, height}; a nested {origin, size} rect is read too. The drawing parts of
  // these extensions (CGContext…, CGPath…, CGColor…, CGImage…, UIGraphics…, UIImage…) need the
  // real frameworks and are not offered: an app that wants one lists it in
  // PatchEngine.allowedCFunctions for defineCFunction.
  var transformKeys = ['a', 'b', 'c', 'd', 'tx', 'ty'];

  function transform(a, b, c, d, tx, ty) { return { a: a, b: b, c: c, d: d, tx: tx, ty: ty }; }
  function concat(t1, t2) {   // t1 then t2, as CGAffineTransformConcat
    return transform(t1.a * t2.a + t1.b * t2.c, t1.a * t2.b + t1.b * t2.d,
                     t1.c * t2.a + t1.d * t2.c, t1.c * t2.b + t1.d * t2.d,
                     t1.tx * t2.a + t1.ty * t2.c + t2.tx, t1.tx * t2.b + t1.ty * t2.d + t2.ty);
  }
  function readTransform(t) {
    if (t === null || typeof t !== 'object') throw new TypeError('expected a CGAffineTransform {a, b, c, d, tx, ty}');
    return transform(Number(t.a), Number(t.b), Number(t.c), Number(t.d), Number(t.tx), Number(t.ty));
  }
  function rect(x, y, width, height) { return { x: x, y: y, width: width, height: height }; }
  // A rect with non-negative width and height, from either shape.
  function readRect(r) {
    if (r === null || typeof r !== 'object') throw new TypeError('expected a CGRect {x, y, width, height}');
    var x = r.origin ? r.origin.x : r.x, y = r.origin ? r.origin.y : r.y;
    var w = r.size ? r.size.width : r.width, h = r.size ? r.size.height : r.height;
    x = Number(x); y = Number(y); w = Number(w); h = Number(h);
    if (w < 0) { x += w; w = -w; }
    if (h < 0) { y += h; h = -h; }
    return rect(x, y, w, h);
  }
  var nullRect = function () { return rect(Infinity, Infinity, 0, 0); };
  function isNullRect(r) { return r.x === Infinity || r.y === Infinity; }

  function JPCGTransform() {
    defineStruct({ name: 'CGAffineTransform', types: 'FFFFFF', keys: transformKeys });
    defineGlobal('CGAffineTransformMakeTranslation', function (tx, ty) { return transform(1, 0, 0, 1, Number(tx), Number(ty)); });
    defineGlobal('CGAffineTransformMakeScale', function (sx, sy) { return transform(Number(sx), 0, 0, Number(sy), 0, 0); });
    defineGlobal('CGAffineTransformMakeRotation', function (angle) {
      var cos = Math.cos(angle), sin = Math.sin(angle);
      return transform(cos, sin, -sin, cos, 0, 0);
    });
    defineGlobal('CGAffineTransformTranslate', function (t, tx, ty) {
      return concat(transform(1, 0, 0, 1, Number(tx), Number(ty)), readTransform(t));
    });
    defineGlobal('CGAffineTransformScale', function (t, sx, sy) {
      return concat(transform(Number(sx), 0, 0, Number(sy), 0, 0), readTransform(t));
    });
    defineGlobal('CGAffineTransformRotate', function (t, angle) {
      var cos = Math.cos(angle), sin = Math.sin(angle);
      return concat(transform(cos, sin, -sin, cos, 0, 0), readTransform(t));
    });
    defineGlobal('CGRectApplyAffineTransform', function (r, t) {
      r = readRect(r); t = readTransform(t);
      var xs = [], ys = [];
      [[r.x, r.y], [r.x + r.width, r.y], [r.x, r.y + r.height], [r.x + r.width, r.y + r.height]].forEach(function (p) {
        xs.push(t.a * p[0] + t.c * p[1] + t.tx);
        ys.push(t.b * p[0] + t.d * p[1] + t.ty);
      });
      var minX = Math.min.apply(null, xs), minY = Math.min.apply(null, ys);
      return rect(minX, minY, Math.max.apply(null, xs) - minX, Math.max.apply(null, ys) - minY);
    });
  }

  function JPCGGeometry() {
    defineGlobal('CGRectGetMinX', function (r) { return readRect(r).x; });
    defineGlobal('CGRectGetMinY', function (r) { return readRect(r).y; });
    defineGlobal('CGRectGetMaxX', function (r) { r = readRect(r); return r.x + r.width; });
    defineGlobal('CGRectGetMaxY', function (r) { r = readRect(r); return r.y + r.height; });
    defineGlobal('CGRectGetMidX', function (r) { r = readRect(r); return r.x + r.width / 2; });
    defineGlobal('CGRectGetMidY', function (r) { r = readRect(r); return r.y + r.height / 2; });
    defineGlobal('CGRectEqualToRect', function (a, b) {
      a = readRect(a); b = readRect(b);
      return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
    });
    defineGlobal('CGRectContainsPoint', function (r, p) {
      r = readRect(r);
      return p.x >= r.x && p.x < r.x + r.width && p.y >= r.y && p.y < r.y + r.height;
    });
    defineGlobal('CGRectOffset', function (r, dx, dy) { r = readRect(r); return rect(r.x + Number(dx), r.y + Number(dy), r.width, r.height); });
    defineGlobal('CGRectInset', function (r, dx, dy) {
      r = readRect(r);
      var w = r.width - 2 * dx, h = r.height - 2 * dy;
      return w < 0 || h < 0 ? nullRect() : rect(r.x + Number(dx), r.y + Number(dy), w, h);
    });
    defineGlobal('CGRectIntegral', function (r) {
      r = readRect(r);
      var x = Math.floor(r.x), y = Math.floor(r.y);
      return rect(x, y, Math.ceil(r.x + r.width) - x, Math.ceil(r.y + r.height) - y);
    });
    function intersection(a, b) {
      a = readRect(a); b = readRect(b);
      var x = Math.max(a.x, b.x), y = Math.max(a.y, b.y);
      var maxX = Math.min(a.x + a.width, b.x + b.width), maxY = Math.min(a.y + a.height, b.y + b.height);
      return maxX < x || maxY < y ? nullRect() : rect(x, y, maxX - x, maxY - y);
    }
    defineGlobal('CGRectIntersection', intersection);
    defineGlobal('CGRectIntersectsRect', function (a, b) {
      var r = intersection(a, b);
      return !isNullRect(r) && r.width > 0 && r.height > 0;
    });
  }

  // "{{1, 2}, {3, 4}}" → its numbers, as UIKit's NSStringFrom… formats write them.
  function numbersIn(string, count) {
    var found = String(string).match(/[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g) || [];
    var numbers = [];
    for (var i = 0; i < count; i++) numbers.push(i < found.length ? Number(found[i]) : 0);
    return numbers;
  }

  function JPUIGeometry() {
    defineStruct({ name: 'UIEdgeInsets', types: 'FFFF', keys: ['top', 'left', 'bottom', 'right'] });
    defineStruct({ name: 'UIOffset', types: 'FF', keys: ['horizontal', 'vertical'] });
    defineGlobal('CGRectFromString', function (s) { var n = numbersIn(s, 4); return rect(n[0], n[1], n[2], n[3]); });
    defineGlobal('CGSizeFromString', function (s) { var n = numbersIn(s, 2); return { width: n[0], height: n[1] }; });
    defineGlobal('CGPointFromString', function (s) { var n = numbersIn(s, 2); return { x: n[0], y: n[1] }; });
    defineGlobal('CGVectorFromString', function (s) { var n = numbersIn(s, 2); return { dx: n[0], dy: n[1] }; });
  }

  // --- the registry ---------------------------------------------------------------------------------
  // JSPatch's names, each with what it installs. JPCFunction and JPBlock are built into this
  // engine (defineCFunction, block()): adding them changes nothing.
  var extensions = {
    JPMemory: JPMemory,
    JPStructPointer: JPStructPointer,
    JPNumber: JPNumber,
    JPCFunction: function () {},
    JPBlock: function () {},
    JPCGTransform: JPCGTransform,
    JPCGGeometry: JPCGGeometry,
    JPCoreGraphics: function () { JPCGTransform(); JPCGGeometry(); },
    JPUIGeometry: JPUIGeometry,
    JPUIKit: function () { JPUIGeometry(); }
  };

  var JPEngine = {
    defineStruct: function (definition) { return defineStruct(definition); },
    // Installs each named extension (again, if a script reverted it meanwhile: every call
    // defines its globals in the running script's transaction).
    addExtensions: function (names) {
      if (!Array.isArray(names)) throw new TypeError('addExtensions expects an array of extension names');
      names.forEach(function (name) {
        name = String(name);
        var install = Object.prototype.hasOwnProperty.call(extensions, name) ? extensions[name] : null;
        if (install) { install(); return; }
        var source = J.registeredExtension(name);
        if (source === null) {
          throw new Error('addExtensions: no extension named ' + name + ' (this engine has ' + Object.keys(extensions).join(', ')
                          + '; an app adds its own with PatchEngine.registerExtension)');
        }
        // The extension sees the global object through a proxy whose assignments are recorded
        // in the running script's transaction, like the engine's own extensions' globals.
        source(new Proxy(global, {
          set: function (target, key, value) {
            if (typeof key !== 'string') return Reflect.set(target, key, value);
            J.defineGlobal(key, value);
            return true;
          }
        }));
      });
    }
  };
  function defineStruct(definition) { return global.defineStruct(definition); }

  // --- defineJSClass ------------------------------------------------------------------------------
  // JS-only classes, as JSPatch makes them: `Name.alloc().init()`, instance methods on a
  // prototype, class methods on the class object. `this.super()` is the superclass's prototype
  // (methods called through it run with that prototype as `this`, as in JSPatch, where state that
  // init writes through super() lands on the prototype), and the default init calls super's.
  var jsClasses = {};   // name → constructor

  function defineJSClass(declaration, instanceMethods, classMethods) {
    var parts = String(declaration).split(':');
    var name = parts[0].trim(), superName = parts[1] ? parts[1].trim() : null;
    if (!name) throw new Error("defineJSClass('" + declaration + "'): the class needs a name");
    if (superName && !jsClasses[superName]) {
      throw new Error("defineJSClass('" + declaration + "'): no JS class named " + superName + ' (define it first)');
    }
    var Constructor = function () {};
    Constructor.prototype = {
      init: function () {
        var parent = this.super();
        if (parent) parent.init();
        return this;
      },
      super: function () { return superName ? jsClasses[superName].prototype : null; }
    };
    var cls = { alloc: function () { return new Constructor(); } };
    Object.keys(instanceMethods || {}).forEach(function (key) { Constructor.prototype[key] = instanceMethods[key]; });
    Object.keys(classMethods || {}).forEach(function (key) { cls[key] = classMethods[key]; });
    J.recordJSClass(name, jsClasses[name] || null);
    jsClasses[name] = Constructor;
    return defineGlobal(name, cls);
  }

  // The surface runtime.js hands to scripts, and what the engine keeps (Engine.loadJSPatch).
  return {
    surface: { JPEngine: JPEngine, defineJSClass: defineJSClass, autoConvertOCType: function (on) { J.setAutoConvert(!!on); } },
    jsClassRemover: function (name, previous) {
      if (previous) jsClasses[name] = previous; else delete jsClasses[name];
    }
  };
})
