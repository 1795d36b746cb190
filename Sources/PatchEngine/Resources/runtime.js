// PatchEngine's JavaScript half: the JSPatch-compatible surface that patch scripts see.
// Native functions (prefixed _OC_) are installed by the Swift engine before this file runs;
// this file hides them behind the documented API and keeps per-call context (self, the defining
// class for super/ORIG) in JavaScript, where execution is serialised by the VM lock.
(function (global) {
  'use strict';

  var N = global.__PatchEngineNative;   // the native bindings, removed from the global object below
  delete global.__PatchEngineNative;

  var OCObject = N.objectPrototype;     // prototype of every boxed Objective-C object
  var nilFunction = function () { return false; };

  // --- the per-call context of a method implemented in JS --------------------------------------
  // definingClass is the class (or metaclass) whose JS method is running: super and ORIG resolve
  // from it, never from the receiver's runtime class, so parent and child patches can't loop.
  // While a method runs, `context` is its wrapper, whose definingClass, selectorName and script
  // the engine set once: entering a method allocates nothing.
  var context = { self: undefined, definingClass: null };

  // The wrapper every JS method runs in, called as method(receiver, arg1, arg2, ...). Made here,
  // before defineClass reaches the engine, so defining a class is one call into the engine: it
  // reads `arity` and sets the defining class, selector and script it decided on the wrapper
  // itself (plain properties, no call back into JS). The common argument counts call `fn`
  // directly (`fn.call` compiles to a plain call), so a call copies no arguments.
  function makeMethod(fn) {
    var method = function (receiver, a, b, c, d, e, f) {
      var saved = context, savedSelf = global.self;
      context = method;
      global.self = receiver;
      try {
        switch (arguments.length) {
          case 0: case 1: return fn.call(receiver);
          case 2: return fn.call(receiver, a);
          case 3: return fn.call(receiver, a, b);
          case 4: return fn.call(receiver, a, b, c);
          case 5: return fn.call(receiver, a, b, c, d);
          case 6: return fn.call(receiver, a, b, c, d, e);
          case 7: return fn.call(receiver, a, b, c, d, e, f);
          default: return fn.apply(receiver, Array.prototype.slice.call(arguments, 1));
        }
      } finally {
        context = saved;
        global.self = savedSelf;
      }
    };
    method.arity = fn.length;
    method.definingClass = null;
    method.selectorName = null;
    method.script = undefined;
    return method;
  }

  // Anything but a plain object of functions goes to the engine as is, which refuses it.
  function makeMethods(table) {
    if (table === null || typeof table !== 'object' || OCObject.isPrototypeOf(table)) return table;
    var wrapped = {};
    Object.keys(table).forEach(function (key) {
      var fn = table[key];
      wrapped[key] = typeof fn === 'function' ? makeMethod(fn) : fn;
    });
    return wrapped;
  }

  // --- dispatch: obj.__c("name")(args) ------------------------------------------------------------
  // A call costs no allocation: `__c` records its receiver in `pending` at the current nesting
  // level and returns the caller made once for (name, level), which takes the receiver back.
  // Calls complete in the reverse order of their `__c` (argument lists nest), so each caller reads
  // its own level; one whose arguments threw leaves an entry that the enclosing call discards by
  // resetting the level. A call that can be suspended between `__c` and the call (`yield` or
  // `await` among its arguments) is rewritten to `__C`, which captures its receiver instead.
  var pending = [];
  var depth = 0;
  var MAX_DEPTH = 512;          // deeper (or after many abandoned calls) falls back to capturing
  var send = N.send;
  var nativeCallers = Object.create(null);   // name -> [caller per level], for Objective-C receivers
  var jsCallers = Object.create(null);       // name -> [caller per level], for JS values

  // A caller for Objective-C receivers: passes the arguments as they are with a selector number
  // resolved once per argument count (JSPatch's name rule, in the engine's SelectorName).
  // Callers declare no parameters: a function called with fewer arguments than it declares goes
  // through JavaScriptCore's arity fix-up (a frame copy per call); `arguments` that doesn't escape
  // costs nothing.
  function makeNativeCaller(name, level) {
    var selectors = [];
    return function () {
      var receiver = pending[level];
      pending[level] = undefined;
      depth = level;
      var argc = arguments.length;
      var selector = selectors[argc];
      if (selector === undefined) selector = selectors[argc] = N.sendSelector(name, argc);
      switch (argc) {
        case 0: return send(receiver, selector);
        case 1: return send(receiver, selector, arguments[0]);
        case 2: return send(receiver, selector, arguments[0], arguments[1]);
        case 3: return send(receiver, selector, arguments[0], arguments[1], arguments[2]);
        case 4: return send(receiver, selector, arguments[0], arguments[1], arguments[2], arguments[3]);
      }
      var args = [receiver, selector];
      for (var i = 0; i < argc; i++) args.push(arguments[i]);
      return send.apply(null, args);
    };
  }

  // A caller for JS values (objects, strings, numbers): the member called on its receiver.
  function makeJSCaller(name, level) {
    return function () {
      var receiver = pending[level];
      pending[level] = undefined;
      depth = level;
      var member = memberFunction(receiver, name);
      switch (arguments.length) {
        case 0: return member.call(receiver);
        case 1: return member.call(receiver, arguments[0]);
        case 2: return member.call(receiver, arguments[0], arguments[1]);
        case 3: return member.call(receiver, arguments[0], arguments[1], arguments[2]);
      }
      var args = [];
      for (var i = 0; i < arguments.length; i++) args.push(arguments[i]);
      return member.apply(receiver, args);
    };
  }

  function memberFunction(target, name) {
    var member = target[name];
    if (typeof member === 'function') return member;
    if (member === undefined) throw new TypeError(typeOf(target) + ' has no method ' + name);
    throw new TypeError(name + ' is not a function');
  }

  // The caller of `name` at the current level, with `receiver` recorded for it.
  function enter(table, make, receiver, name) {
    var level = depth;
    if (level >= MAX_DEPTH) return null;
    var callers = table[name];
    if (callers === undefined) callers = table[name] = [];
    var caller = callers[level];
    if (caller === undefined) caller = callers[level] = make(name, level);
    pending[level] = receiver;
    depth = level + 1;
    return caller;
  }

  function resetCalls() {
    pending = [];
    depth = 0;
  }

  Object.defineProperty(Object.prototype, '__c', {
    enumerable: false, configurable: true, writable: true,
    value: function (name) {
      // nil arrives as false: any message to it answers false, so nil.foo().bar() never throws.
      if (this === false) return nilFunction;
      if (name === 'toJS') return identity(this);
      var callers = jsCallers[name];
      if (callers !== undefined) {
        var level = depth, caller = callers[level];
        if (caller !== undefined) { pending[level] = this; depth = level + 1; return caller; }
      }
      return enter(jsCallers, makeJSCaller, this, name) || capturedJSCall(this, name);
    }
  });

  // `__C`: the same call with its receiver captured (for calls that can be suspended).
  Object.defineProperty(Object.prototype, '__C', {
    enumerable: false, configurable: true, writable: true,
    value: function (name) {
      if (this === false) return nilFunction;
      if (name === 'toJS') return identity(this);
      return capturedJSCall(this, name);
    }
  });

  function identity(target) { return function () { return target; }; }

  function capturedJSCall(target, name) {
    return memberFunction(target, name).bind(target);
  }

  function typeOf(value) {
    if (value === null) return 'null';
    if (Array.isArray(value)) return 'array';
    return typeof value;
  }

  var jsOnlyMethods = {};   // className -> { name: wrapped function }, for `_`-prefixed JS-only methods

  function findJSOnly(obj, name) {
    var chain = N.classChain(obj);
    for (var i = 0; i < chain.length; i++) {
      var table = jsOnlyMethods[chain[i]];
      if (table && Object.prototype.hasOwnProperty.call(table, name)) return table[name];
    }
    return null;
  }

  // Names whose meaning depends on more than the name (the receiver's class, the running method):
  // their calls capture their receiver.
  function isSpecialName(name) {
    switch (name) {
      case 'super': case 'toJS': case 'performSelector': case 'performSelectorInOC': return true;
    }
    if (name.charCodeAt(0) === 95 /* _ */ && name.charCodeAt(1) !== 95) return true;
    return name.length > 4 && name.lastIndexOf('ORIG', 0) === 0;
  }

  Object.defineProperty(OCObject, '__c', {
    enumerable: false, configurable: true, writable: true,
    value: function (name) {
      var callers = nativeCallers[name];
      if (callers !== undefined) {
        var level = depth, caller = callers[level];
        if (caller !== undefined) { pending[level] = this; depth = level + 1; return caller; }
      }
      if (isSpecialName(name)) return capturedNativeCall(this, name);
      return enter(nativeCallers, makeNativeCaller, this, name) || capturedNativeCall(this, name);
    }
  });

  Object.defineProperty(OCObject, '__C', {
    enumerable: false, configurable: true, writable: true,
    value: function (name) { return capturedNativeCall(this, name); }
  });

  var selectorCache = Object.create(null);
  function selectorFor(name, argc) {
    var entry = selectorCache[name];
    if (entry === undefined) entry = selectorCache[name] = [];
    var selector = entry[argc];
    if (selector === undefined) selector = entry[argc] = N.selector(name, argc);
    return selector;
  }

  // A call that captures its receiver: special names, suspendable calls, very deep nesting.
  function capturedNativeCall(obj, name) {
    switch (name) {
      case 'super':
        return function () { return makeSuper(obj); };
      case 'toJS':
        return function () { return N.toJS(obj); };
      case 'performSelector':
        return function (selector) {
          return N.callI(obj, String(selector), Array.prototype.slice.call(arguments, 1));
        };
      case 'performSelectorInOC':
        return function (selector, args, callback) {
          return { __performInOC: true, obj: obj, selector: String(selector), args: args || [], callback: callback };
        };
    }
    if (name.charCodeAt(0) === 95 /* _ */ && name.charCodeAt(1) !== 95) {
      var jsOnly = findJSOnly(obj, name);
      if (jsOnly) return function () {
        var args = [obj];
        for (var i = 0; i < arguments.length; i++) args.push(arguments[i]);
        return jsOnly.apply(null, args);
      };
    }
    if (name.length > 4 && name.lastIndexOf('ORIG', 0) === 0) {
      var ctx = context;
      return function () { return N.callOriginal(obj, name.slice(4), ctx.definingClass, arguments); };
    }
    return function () { return N.callI(obj, selectorFor(name, arguments.length), arguments); };
  }

  Object.defineProperty(OCObject, 'toString', {
    enumerable: false, configurable: true, writable: true,
    value: function () { return N.describe(this); }
  });

  function SuperProxy(obj, definingClass) { this.obj = obj; this.definingClass = definingClass; }
  Object.defineProperty(SuperProxy.prototype, '__c', {
    enumerable: false, value: function (name) {
      var proxy = this;
      return function () { return N.callSuper(proxy.obj, name, proxy.definingClass, arguments); };
    }
  });

  function makeSuper(obj) {
    if (!context.definingClass) throw new Error('super() is only available inside a method defined with defineClass');
    return new SuperProxy(obj, context.definingClass);
  }

  // --- classes ------------------------------------------------------------------------------------
  global.require = function (names) {
    var last;
    String(names).split(',').forEach(function (raw) {
      var name = raw.trim();
      if (!name) return;
      last = global[name] = N.getClass(name);
    });
    return last;
  };

  global.defineClass = function (declaration, properties, instanceMethods, classMethods) {
    if (!Array.isArray(properties)) {
      classMethods = instanceMethods;
      instanceMethods = properties;
      properties = [];
    }
    properties = properties || [];
    // Properties: a getter name() and a setter setName(v) unless the script wrote its own;
    // values are kept by the engine (associated objects; a side table on GCC's runtime).
    var methods = {};
    Object.keys(instanceMethods || {}).forEach(function (key) { methods[key] = instanceMethods[key]; });
    properties.forEach(function (property) {
      property = String(property);
      var setter = 'set' + property.charAt(0).toUpperCase() + property.slice(1);
      if (!(property in methods)) methods[property] = function () { return N.getProperty(this, property); };
      if (!(setter in methods)) methods[setter] = function (value) { N.setProperty(this, property, value); };
    });
    var result = N.defineClass(String(declaration), properties, makeMethods(methods),
                               makeMethods(classMethods || {}), context.script === undefined ? null : context.script);
    // As JSPatch: the class becomes a global and is returned.
    return (global[result.cls] = result.classObject);
  };

  // `_`-prefixed JS-only methods: defineClass writes its wrappers into this table directly.
  N.setJSOnlyTable(jsOnlyMethods);
  N.setScriptGetter(function () { return context.script === undefined ? null : context.script; });
  // A script terminated by the time limit skips every `finally`: the engine resets the per-call
  // context through this after a termination, so the next call doesn't run with a stale self.
  N.setContextResetter(function () {
    context = { self: undefined, definingClass: null };
    global.self = undefined;
    resetCalls();
  });
  N.setJSOnlyRemover(function (className, name, previous) {
    var table = jsOnlyMethods[className];
    if (!table) return;
    if (previous) table[name] = previous; else delete table[name];
  });

  global.defineProtocol = function (name, instanceMethods, classMethods) {
    return N.defineProtocol(String(name), instanceMethods || {}, classMethods || {});
  };

  global.defineStruct = function (definition) {
    if (!definition || typeof definition !== 'object') throw new TypeError('defineStruct expects {name, types, keys}');
    return N.defineStruct(definition.name, definition.types, definition.keys);
  };

  // --- values ------------------------------------------------------------------------------------
  global.block = function (types, fn) {
    if (typeof types === 'function') { fn = types; types = 'void'; }
    if (typeof fn !== 'function') throw new TypeError('block(types, fn) expects a function');
    return N.makeBlock(String(types), fn);
  };

  global.nsnull = N.nsnull;
  global.YES = 1;
  global.NO = 0;

  global.__weak = function (obj) { return N.weak(obj); };
  global.__strong = function (obj) { return N.strong(obj); };

  global.malloc = function (size) { return N.malloc(size); };
  global.free = function (ptr) { return N.free(ptr); };
  global.pval = function (ptr) { return N.pval(ptr); };
  global.assignPointer = function (ptr, value) { return N.assignPointer(ptr, value); };
  global.sizeof = function (type) { return N.sizeof(String(type)); };

  // --- helpers -------------------------------------------------------------------------------------
  global.console = {
    log: function () {
      var parts = [];
      for (var i = 0; i < arguments.length; i++) {
        var v = arguments[i];
        parts.push(typeof v === 'string' ? v : N.describe(v));
      }
      N.log(parts.join(' '));
    }
  };

  global.dispatch_after = function (seconds, fn) { N.dispatch(0, Number(seconds) || 0, fn); };
  global.dispatch_async_main = function (fn) { N.dispatch(1, 0, fn); };
  global.dispatch_sync_main = function (fn) { N.dispatch(2, 0, fn); };
  global.dispatch_async_global_queue = function (fn) { N.dispatch(3, 0, fn); };

  // --- toolkit: hooks and routes -------------------------------------------------------------------
  // hook(target, 'selector:', 'before' | 'instead' | 'after', fn(info, args...), {once: true})
  global.hook = function (target, selector, position, fn, options) {
    return N.hook(target, String(selector), String(position), fn, !!(options && options.once), false);
  };
  global.hookClass = function (cls, selector, position, fn, options) {
    return N.hook(cls, String(selector), String(position), fn, !!(options && options.once), true);
  };
  global.routes = {
    add: function (pattern, handler, options) { return N.routeAdd(String(pattern), handler, options || {}, false); },
    replace: function (pattern, handler, options) { return N.routeAdd(String(pattern), handler, options || {}, true); },
    remove: function (pattern, options) { return N.routeRemove(String(pattern), options || {}); },
    route: function (url, parameters) { return N.routeURL(String(url), parameters || null); }
  };

  // defineCFunction('strlen', 'size_t, const char *'): a global calling the C function.
  global.defineCFunction = function (name, types) {
    return (global[name] = N.defineCFunction(String(name), String(types)));
  };

  global.include = function (path) { return N.include(String(path)); };
  global.resourcePath = function (path) { return N.resourcePath(String(path || '')); };
})(this);
