// PatchEngine's JavaScript half: the JSPatch-compatible surface that patch scripts see.
// The native functions are installed by the Swift engine before this file runs, as the object
// `__PatchEngineNative` (taken off the global object below); this file hides them behind the documented API and keeps per-call context (self, the defining
// class for super/ORIG) in JavaScript, where execution is serialised by the VM lock.
var self;   // the receiver of the JS method running (JSPatch's convention): a global variable
// The check points' counter and its call-out (ExecutionTimeLimit.swift): global lexical bindings,
// which are no properties of the global object; scripts naming them are refused (Preprocessor).
const __peTick = __PatchEngineNative.tickCounter, __peTock = __PatchEngineNative.tock;
(function (global) {
  'use strict';

  var N = global.__PatchEngineNative;   // the native bindings, removed from the global object below
  delete global.__PatchEngineNative;

  var OCObject = N.objectPrototype;     // prototype of every boxed Objective-C object
  var nilFunction = function () { return false; };

  // --- the per-call context of a method implemented in JS --------------------------------------
  // definingClass is the class (or metaclass) whose JS method is running: super and ORIG resolve
  // from it, never from the receiver's runtime class, so parent and child patches can't loop.
  // While a method runs, `frame.context` is its wrapper, whose definingClass, selectorName and
  // script the engine set once: entering a method allocates nothing. It is a property of `frame`,
  // an object, so that direct.js's callers (code compiled apart, in `new Function`) share it.
  var frame = { context: { self: undefined, definingClass: null } };
  // `self` (JSPatch's convention) is a global variable (`var self` above), assigned by name: a
  // plain store for JavaScriptCore's optimising compilers. Assigned through `global.` (the global
  // proxy), every call clobbered all of a loop's loads (≈ 5 ns a call of a JS-defined method).

  // The wrapper every JS method runs in, called as method(receiver, arg1, arg2, ...). Made here,
  // before defineClass reaches the engine, so defining a class is one call into the engine: it
  // reads `arity` and sets the defining class, selector and script it decided on the wrapper
  // itself (plain properties, no call back into JS). The common argument counts call `fn`
  // directly (`fn.call` compiles to a plain call), so a call copies no arguments.
  function makeMethod(fn) {
    var method = function (receiver, a, b, c, d, e, f) {
      var saved = frame.context, savedSelf = self;
      frame.context = method;
      self = receiver;
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
        frame.context = saved;
        self = savedSelf;
      }
    };
    // Read-only: a native entry (below) calls `method.fn`, which must stay what the wrapper calls.
    Object.defineProperty(method, 'fn', { value: fn, writable: false, enumerable: true, configurable: false });
    method.arity = fn.length;
    method.definingClass = null;
    method.selectorName = null;
    method.script = undefined;
    return method;
  }

  // A native call with just its selector's arguments (the usual one) enters through one of these,
  // by that count, with the method's wrapper first: the wrapper's work without its `arguments`,
  // which JavaScriptCore's lower tiers make an object of per call — where the wrapper's shared code
  // stayed in them (a process that had run many patches), ≈ 40 ns of each patched call. More than
  // six arguments, or extra ones (ExtraArguments), go through the wrapper.
  var nativeEntries = [
    function (method, receiver) {
      var saved = frame.context, savedSelf = self;
      frame.context = method; self = receiver;
      try { return method.fn.call(receiver); } finally { frame.context = saved; self = savedSelf; if (namesKeeping.length !== 0) forgetKeptCalls(); }
    },
    function (method, receiver, a) {
      var saved = frame.context, savedSelf = self;
      frame.context = method; self = receiver;
      try { return method.fn.call(receiver, a); } finally { frame.context = saved; self = savedSelf; if (namesKeeping.length !== 0) forgetKeptCalls(); }
    },
    function (method, receiver, a, b) {
      var saved = frame.context, savedSelf = self;
      frame.context = method; self = receiver;
      try { return method.fn.call(receiver, a, b); } finally { frame.context = saved; self = savedSelf; if (namesKeeping.length !== 0) forgetKeptCalls(); }
    },
    function (method, receiver, a, b, c) {
      var saved = frame.context, savedSelf = self;
      frame.context = method; self = receiver;
      try { return method.fn.call(receiver, a, b, c); } finally { frame.context = saved; self = savedSelf; if (namesKeeping.length !== 0) forgetKeptCalls(); }
    },
    function (method, receiver, a, b, c, d) {
      var saved = frame.context, savedSelf = self;
      frame.context = method; self = receiver;
      try { return method.fn.call(receiver, a, b, c, d); } finally { frame.context = saved; self = savedSelf; if (namesKeeping.length !== 0) forgetKeptCalls(); }
    },
    function (method, receiver, a, b, c, d, e) {
      var saved = frame.context, savedSelf = self;
      frame.context = method; self = receiver;
      try { return method.fn.call(receiver, a, b, c, d, e); } finally { frame.context = saved; self = savedSelf; if (namesKeeping.length !== 0) forgetKeptCalls(); }
    },
    function (method, receiver, a, b, c, d, e, f) {
      var saved = frame.context, savedSelf = self;
      frame.context = method; self = receiver;
      try { return method.fn.call(receiver, a, b, c, d, e, f); } finally { frame.context = saved; self = savedSelf; if (namesKeeping.length !== 0) forgetKeptCalls(); }
    }
  ];

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

  // --- dispatch: obj.__c(__pe.name||"name")(args) ----------------------------------------------
  // `__c` returns a small function that captures its receiver, and nothing else per call: no
  // `bind`, no copy of `arguments`, no name → selector conversion (selector numbers are cached
  // per name and argument count). Handing the receiver over through shared state instead (a slot
  // per nesting level) saved ≈ 45 ns a call in `make bench`, but the wrong call reads that slot
  // when a generator or async function suspends between `__c` and the call, when an exception
  // thrown among the arguments is caught, or when another thread's JS runs while an argument's
  // native call is out of JavaScriptCore's lock: not worth a silently wrong `self`.
  var send = N.send;
  // name -> PlainName, for names that mean a plain message (not super, toJS, performSelector…,
  // `_`-prefixed or ORIG-prefixed): once a name is here, `__c` needs no checks for it.
  var plainNames = Object.create(null);
  // What a name's `keptReceiver` is while it keeps no call (`nativeCall`): nothing a script can
  // hand `__c`.
  var noReceiver = {};
  var definedNameCount = 0;
  function PlainName(name) {
    this.name = name;
    this.numbers = [];          // selector number per argument count
    // 1 once some class defines a JS method of this name; 2 for a `_` name sent as a message
    // before some class defined a JS-only method of that name (each call looks it up again).
    this.js = 0;
    // Index of this name's callers in a DirectState, given when `js` first becomes non-zero:
    // numbered among names defined in JS only, so states' caller arrays stay short. An array
    // whose first element is written at an index of about 1,000 or more becomes sparse in
    // JavaScriptCore (≈ 13 ns a read instead of ≈ 1): numbered among every name called, a method
    // defined after 2,000 Objective-C names had been sent cost 18 ns a direct call, not 3.
    this.id = -1;
    // The call `__c` last handed out for this name, and its receiver (`nativeCall`).
    this.keptReceiver = noReceiver;
    this.keptCall = undefined;
  }

  // Call sites hand `__c` the name's record, not its name: the preprocessor writes `o.name(` as
  // `o.__c(__pe.name||"name")(`, and `__pe` is this table. JavaScriptCore caches a property load
  // per site, so a site finds its record in its own cache; looked up in `__c`, the lookup's
  // profile was every site's, and once a process had called a few names, a loop calling a
  // JS-defined method paid ≈ 8 ns more a call (Benchmarks/README, the shared-process rows). A
  // name with no record yet, and a special name (never one), reaches `__c` as a string.
  Object.defineProperty(global, '__pe', { value: plainNames, writable: false, enumerable: false, configurable: false });

  function isPlainName(name) {
    switch (name) {
      case 'super': case 'toJS': case 'performSelector': case 'performSelectorInOC': return false;
    }
    if (isJSOnlyName(name)) return false;
    return !(name.length > 4 && name.lastIndexOf('ORIG', 0) === 0);
  }

  function isJSOnlyName(name) {
    return name.charCodeAt(0) === 95 /* _ */ && name.charCodeAt(1) !== 95;
  }

  function plainName(name) {
    var rec = plainNames[name];
    if (rec === undefined && isPlainName(name)) rec = plainNames[name] = new PlainName(name);
    return rec;
  }

  // The message `rec.name` to `obj`: the function a call site calls. Each name keeps the last one
  // called and its receiver, so a loop sending one message to one object makes it once:
  // JavaScriptCore doesn't sink a new one (the call site compiles it as a closure call and keeps
  // the object), and a function and its scope made per call were a collection of the young
  // generation every ≈ 100,000 sends. A function keeps itself when it is first called
  // (`keepCall`), so that this function, inlined with `__c` into every call site, grows by one
  // check only: `__c` and what it calls are inlined from one budget (FTL: a bytecode cost of 170),
  // and a call site inlines `__c`, and the JS-defined method behind it, only while they fit.
  // A kept function holds its receiver: every entry forgets them as it ends (`forgetKeptCalls`,
  // called by runtime.js's entries and by the engine, KeptCalls.swift), so a receiver outlives
  // its last use by JS by one entry at most.
  // The function declares no parameters: one called with fewer arguments than it declares pays
  // JavaScriptCore's arity fix-up (a frame copy), and `arguments` that doesn't escape costs nothing.
  function nativeCall(obj, rec) {
    if (rec.keptReceiver === obj) return rec.keptCall;
    var call = function () {
      if (rec.keptReceiver !== obj) keepCall(obj, rec, call);
      var argc = arguments.length;
      var number = rec.numbers[argc];
      if (number === undefined) number = rec.numbers[argc] = N.sendSelector(rec.name, argc);
      switch (argc) {
        case 0: return send(obj, number);
        case 1: return send(obj, number, arguments[0]);
        case 2: return send(obj, number, arguments[0], arguments[1]);
        case 3: return send(obj, number, arguments[0], arguments[1], arguments[2]);
        case 4: return send(obj, number, arguments[0], arguments[1], arguments[2], arguments[3]);
      }
      var args = [obj, number];
      for (var i = 0; i < argc; i++) args.push(arguments[i]);
      return send.apply(null, args);
    };
    return call;
  }

  // The names keeping a call, and a word the engine reads after an entry (non-zero: some do).
  var namesKeeping = [], keptCalls = N.keptCalls;

  function keepCall(obj, rec, call) {
    if (rec.keptReceiver === noReceiver) {
      namesKeeping.push(rec);
      keptCalls[0] = 1;
    }
    // A termination between two stores leaves the name keeping nothing, never one receiver with
    // another's call.
    rec.keptReceiver = noReceiver;
    rec.keptCall = call;
    rec.keptReceiver = obj;
  }

  function forgetKeptCalls() {
    for (var i = 0; i < namesKeeping.length; i++) {
      namesKeeping[i].keptReceiver = noReceiver;
      namesKeeping[i].keptCall = undefined;
    }
    namesKeeping.length = 0;
    keptCalls[0] = 0;
  }

  // --- methods defined in JS, called from JS without crossing into Objective-C ----------------------
  // The machinery is direct.js, loaded on the first call of a name some class defines in JS (not
  // at engine start: parsing it cost ≈ 0.2 ms). `__c` reads the two values below on every such call:
  // where direct.js keeps each box's DirectState (`get(box)`; nothing before it is loaded), and the
  // dispatch generation of every class (indexed by a state's `index`).
  var direct = null, generation = null, directStates = { get: function () { return undefined; } };
  // What `__c` returns for a name not resolved for the object yet. Small: `__c` is compiled into
  // every call site, and JavaScriptCore's inlining budget is better spent on the direct call.
  function resolvingCall(obj, rec) {
    return function () { return resolveAndCall(obj, rec, arguments); };
  }
  function resolveAndCall(obj, rec, args) {
    if (rec.js === 2) return specialCall(obj, rec.name).apply(null, args);
    if (direct === null) {
      // One native call loads it for every thread: other threads' JS runs while a native call is
      // out, so steps taken here could be seen half done. Each thread assigns the same values.
      var loaded = N.loadDirectCalls({ nativeCall: nativeCall, frame: frame, OCObject: OCObject, makeFunction: RealFunction });
      generation = loaded.generation;
      directStates = loaded.states;
      direct = loaded;
    }
    return direct.resolve(obj, rec, args.length).apply(null, args);
  }


  Object.defineProperty(Object.prototype, '__c', {
    enumerable: false, configurable: true, writable: true,
    value: function (name) {
      var target = this;
      // nil arrives as false: any message to it answers false, so nil.foo().bar() never throws.
      if (target === false) return nilFunction;
      if (name instanceof PlainName) name = name.name;
      if (name === 'toJS') return function () { return target; };
      var member = target[name];
      if (typeof member === 'function') return function () { return member.apply(target, arguments); };
      if (member === undefined) {
        throw new TypeError(typeOf(target) + ' has no method ' + name);
      }
      throw new TypeError(name + ' is not a function');
    }
  });

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

  // Kept small: it is compiled into every call site, and what it leaves of JavaScriptCore's
  // inlining budget decides whether a JS-defined method called there is inlined too.
  Object.defineProperty(OCObject, '__c', {
    enumerable: false, configurable: true, writable: true,
    value: function (name) {
      var obj = this;
      var rec = typeof name === 'string' ? plainNames[name] : name;
      if (rec === undefined) return specialCall(obj, name);
      if (rec.js !== 0) {
        // Some class defines `name` in JS: this object's caller, while its class and the
        // dispatch generation are those it was found for; null: through Objective-C. One call
        // site of each function here: each is inlined where `__c` is, from one budget.
        var st = directStates.get(obj), caller;
        if (st !== undefined && st.generation === generation[st.index]
            && (st.masked ? maskedClassWordIsKept(st) : st.view[0] === st.word)) caller = st.callers[rec.id];
        if (caller === undefined) return resolvingCall(obj, rec);
        if (caller !== null) return obj === self ? caller.sameSelf : caller;
      }
      return nativeCall(obj, rec);
    }
  });

  function maskedClassWordIsKept(st) {
    return (st.view[0] & st.mask0) === st.word0 && (st.view[1] & st.mask1) === st.word1;
  }

  // `obj.name(...)` for a name that isn't a plain message (yet): super, toJS, performSelector…,
  // JS-only `_` methods, ORIG; otherwise the name becomes a PlainName.
  function specialCall(obj, name) {
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
    if (isJSOnlyName(name)) {
      var jsOnly = findJSOnly(obj, name);
      if (jsOnly) return function () {
        var args = [obj];
        for (var i = 0; i < arguments.length; i++) args.push(arguments[i]);
        return jsOnly.apply(null, args);
      };
    }
    if (name.length > 4 && name.lastIndexOf('ORIG', 0) === 0) {
      var ctx = frame.context;
      return function () { return N.callOriginal(obj, name.slice(4), ctx.definingClass, arguments); };
    }
    return nativeCall(obj, plainNames[name] || (plainNames[name] = new PlainName(name)));
  }

  // JSPatch's `obj.__obj`, the Objective-C object behind a box, which scripts hand to native
  // code (`global.ocObj = obj.__obj`): here the box is that object wherever it crosses.
  Object.defineProperty(OCObject, '__obj', {
    enumerable: false, configurable: true,
    get: function () { return this; }
  });

  Object.defineProperty(OCObject, 'toString', {
    enumerable: false, configurable: true, writable: true,
    value: function () { return N.describe(this); }
  });

  function SuperProxy(obj, definingClass) { this.obj = obj; this.definingClass = definingClass; }
  Object.defineProperty(SuperProxy.prototype, '__c', {
    enumerable: false, value: function (name) {
      var proxy = this;
      if (name instanceof PlainName) name = name.name;
      return function () { return N.callSuper(proxy.obj, name, proxy.definingClass, arguments); };
    }
  });

  // Inside a method defined with defineClass, super starts above the defining class; elsewhere
  // (a script's top level, a block), above the receiver's own class, as in JSPatch.
  function makeSuper(obj) {
    return new SuperProxy(obj, frame.context.definingClass || N.superStart(obj));
  }

  // --- classes ------------------------------------------------------------------------------------
  global.require = function (names) {
    var last;
    String(names).split(',').forEach(function (raw) {
      var name = raw.trim();
      if (!name) return;
      // JSPatch's engine object (defineStruct, addExtensions), not an Objective-C class here.
      last = global[name] = name === 'JPEngine' ? jspatch().JPEngine : N.getClass(name);
    });
    return last;
  };

  // jspatch.js (JPEngine, its extensions, defineJSClass, autoConvertOCType): loaded on first use.
  var jspatchSurface = null;
  function jspatch() { return jspatchSurface || (jspatchSurface = N.loadJSPatch()); }
  global.defineJSClass = function (declaration, instanceMethods, classMethods) {
    return jspatch().defineJSClass(declaration, instanceMethods, classMethods);
  };
  global.autoConvertOCType = function (on) { return jspatch().autoConvertOCType(on); };

  // A plain loop: the same marking with forEach and a closure per call made resident memory grow
  // ≈ 1 KB per apply/revert cycle of a patch (patchbench's cycles row; JavaScriptCore keeps
  // something per closure passed to a builtin, not investigated further).
  function markJSDefined(table) {
    var keys = Object.keys(table);
    for (var i = 0; i < keys.length; i++) {
      var rec = plainName(keys[i]);
      if (rec === undefined) continue;
      if (rec.id < 0) rec.id = definedNameCount++;
      rec.js = isJSOnlyName(keys[i]) ? 2 : 1;
    }
  }

  global.defineClass = function (declaration, properties, instanceMethods, classMethods) {
    if (!Array.isArray(properties)) {
      classMethods = instanceMethods;
      instanceMethods = properties;
      properties = [];
    }
    properties = properties || [];
    // Read before forEach walks it: a builtin's loop over 2^32 − 1 holes has no check point
    // (docs/limits.md), so a script's huge list hung defineClass (the native side refuses it too).
    if (properties.length > 4096) {
      throw new Error('defineClass properties has ' + properties.length + ' elements, more than the 4096 allowed');
    }
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
                               makeMethods(classMethods || {}), frame.context.script === undefined ? null : frame.context.script);
    // Calls of these names from JS may now run a JS method directly (resolveDirect).
    markJSDefined(methods);
    if (classMethods !== null && typeof classMethods === 'object') markJSDefined(classMethods);
    // As JSPatch: the class becomes a global and is returned.
    return (global[result.cls] = result.classObject);
  };

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

  // protocol('NSCopying') is @protocol(NSCopying). Protocols are never removed from the runtime,
  // so each name keeps one box: the same protocol is === itself, as a Protocol * is in C.
  var protocolBoxes = Object.create(null);
  global.protocol = function (name) {
    name = String(name);
    return protocolBoxes[name] || (protocolBoxes[name] = N.protocol(name));
  };

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

  var dispatchKind = N.codes.dispatch;   // DispatchKind (NativeBindings.swift)
  global.dispatch_after = function (seconds, fn) { N.dispatch(dispatchKind.after, Number(seconds) || 0, fn); };
  global.dispatch_async_main = function (fn) { N.dispatch(dispatchKind.main, 0, fn); };
  global.dispatch_sync_main = function (fn) { N.dispatch(dispatchKind.mainSync, 0, fn); };
  global.dispatch_async_global_queue = function (fn) { N.dispatch(dispatchKind.global, 0, fn); };

  // --- toolkit: hooks (routes come from PatchRouterBindings, a script extension) -------------------
  // hook(target, 'selector:', 'before' | 'instead' | 'after', fn(info, args...), {once: true})
  global.hook = function (target, selector, position, fn, options) {
    return N.hook(target, String(selector), String(position), fn, !!(options && options.once), false);
  };
  global.hookClass = function (cls, selector, position, fn, options) {
    return N.hook(cls, String(selector), String(position), fn, !!(options && options.once), true);
  };

  // defineCFunction('strlen', 'size_t, const char *'): a global calling the C function.
  // The global is reverted with the script that defined it.
  global.defineCFunction = function (name, types) {
    var fn = N.defineCFunction(String(name), String(types));
    N.defineGlobal(String(name), fn);
    return fn;
  };

  // externConstant('SKKey', 'NSString *'): an exported constant the app allows, read by its symbol.
  global.externConstant = function (name, type) { return N.externConstant(String(name), String(type)); };
  global.include = function (path) { return N.include(String(path)); };
  global.resourcePath = function (path) { return N.resourcePath(String(path || '')); };

  // Code made at run time gets check points too, or a runaway in it would never be checked
  // (docs/limits.md): eval, Function and the constructors of generator and async functions
  // preprocess their source first (N.preprocess, which also refuses the check points' names).
  // eval becomes indirect: the code runs in the global scope. Only the captured originals are
  // called, through a captured Reflect.apply: no lookup a script could redirect reaches them.
  var prepare = N.preprocess, applyFunction = Reflect.apply, defineProperty = Object.defineProperty;
  var RealFunction = Function, realEval = global.eval;
  defineProperty(global, 'eval', {
    value: function (code) { return typeof code === 'string' ? realEval(prepare(code, false)) : code; },
    writable: true, configurable: true
  });
  function checkedConstructor(Real) {
    var made = function () {
      var n = arguments.length, params = '';
      for (var k = 0; k < n - 1; k++) params += (k ? ',' : '') + String(arguments[k]);
      var body = prepare(n > 0 ? String(arguments[n - 1]) : '', true);
      return n > 1 ? applyFunction(Real, undefined, [prepare(params, false), body]) : applyFunction(Real, undefined, [body]);
    };
    made.prototype = Real.prototype;
    defineProperty(Real.prototype, 'constructor', { value: made, writable: true, configurable: true });
    return made;
  }
  global.Function = checkedConstructor(RealFunction);
  checkedConstructor(Object.getPrototypeOf(function* () {}).constructor);
  checkedConstructor(Object.getPrototypeOf(async function () {}).constructor);
  checkedConstructor(Object.getPrototypeOf(async function* () {}).constructor);

  // JavaScriptCore's builtins run no check point: `a.length = 4294967295; a.forEach(f)` walked
  // 2^32 - 1 holes for a minute (f never ran), under any limit (docs/limits.md). The Array
  // builtins that walk an array-like's length refuse one longer than `longestWalk` up front (the
  // longest JavaScriptCore's own loops run in well under a second); name and length stay theirs.
  var longestWalk = 16777216;
  function tooLong(what, n, unit) {
    return new RangeError(what + ' over ' + n + ' ' + (unit || 'elements') + ': more than the ' + longestWalk +
                          ' a builtin may walk in a patch (it runs no execution check)');
  }
  // `lengthOf(receiver, first argument, second argument)`: how many elements the builtin walks.
  function walkBounded(holder, prefix, names, lengthOf) {
    names.forEach(function (name) {
      var original = holder[name];
      if (typeof original !== 'function') return;
      // The caller's arguments are passed on as many as they came, through `call`: so
      // JavaScriptCore still compiles a builtin it knows (indexOf) as its intrinsic (≈ 6 ns a
      // call instead of ≈ 18 through Reflect.apply with `arguments`; ≈ 4 unwrapped).
      var bounded = function (a, b, c) {
        var n = lengthOf(this, a, b);
        if (n > longestWalk) throw tooLong(prefix + name, n);
        switch (arguments.length) {
          case 0: return original.call(this);
          case 1: return original.call(this, a);
          case 2: return original.call(this, a, b);
          case 3: return original.call(this, a, b, c);
        }
        return applyFunction(original, this, arguments);
      };
      named(bounded, name, original.length);
      defineProperty(holder, name, { value: bounded, writable: true, configurable: true, enumerable: false });
    });
  }
  function named(f, name, length) {
    defineProperty(f, 'name', { value: name });
    defineProperty(f, 'length', { value: length });
    return f;
  }
  function arrayLength(o) { var n = o == null ? 0 : +o.length; return n === n ? n : 0; }
  var isArray = Array.isArray, spreadable = Symbol.isConcatSpreadable;
  var TypedArray = Object.getPrototypeOf(Int8Array), typedLength = Object.getOwnPropertyDescriptor(TypedArray.prototype, 'length').get;
  // Asked first whether `o` is a view at all: the getter's TypeError for anything else, thrown and
  // caught, cost a call of `Array.from('ab')` or `ta.set(array)` ≈ 2 µs. (A DataView is a view the
  // getter refuses: rare enough to catch.)
  var isView = ArrayBuffer.isView;
  function typedLengthOf(o) {
    if (!isView(o)) return 0;
    try { return typedLength.call(o); } catch (e) { return 0; }
  }
  walkBounded(Array.prototype, 'Array.prototype.',
              ['forEach', 'map', 'filter', 'reduce', 'reduceRight', 'every', 'some', 'find', 'findIndex', 'findLast',
               'findLastIndex', 'indexOf', 'lastIndexOf', 'includes', 'fill', 'join', 'toLocaleString', 'sort', 'reverse',
               'copyWithin', 'flatMap', 'slice', 'splice', 'shift', 'unshift', 'toSorted', 'toReversed',
               'toSpliced', 'with'],
              arrayLength);
  // flat walks the arrays it flattens too, to its depth: counted until past the bound. flatMap
  // flattens what its callback returns: each result is checked as it comes back.
  function flatLength(o, depth, budget) {
    var n = arrayLength(o), total = n;
    if (depth < 1 || n > budget) return total;
    for (var i = 0; i < n && total <= budget; i++) {
      var e = o[i];
      if (isArray(e)) total += flatLength(e, depth - 1, budget - total);
    }
    return total;
  }
  walkBounded(Array.prototype, 'Array.prototype.', ['flat'], function (o, depthArgument) {
    var depth = depthArgument === undefined ? 1 : +depthArgument;
    return flatLength(o, depth === depth ? depth : 0, longestWalk);
  });
  var flatMapBounded = Array.prototype.flatMap;
  function flatMap(callback, thisArg) {
    if (typeof callback !== 'function') return applyFunction(flatMapBounded, this, arguments);
    return applyFunction(flatMapBounded, this, [function (x, i, a) {
      var r = applyFunction(callback, thisArg, [x, i, a]), n = isArray(r) ? arrayLength(r) : 0;
      if (n > longestWalk) throw tooLong('Array.prototype.flatMap', n);
      return r;
    }]);
  }
  defineProperty(Array.prototype, 'flatMap', { value: named(flatMap, 'flatMap', 1), writable: true, configurable: true, enumerable: false });
  // concat walks each argument it spreads too (an array, or what says it is spreadable).
  var concat = Array.prototype.concat;
  function spreadLength(arg) {
    if (arg === null || (typeof arg !== 'object' && typeof arg !== 'function')) return 0;
    var says = arg[spreadable];
    return (says === undefined ? isArray(arg) : says) ? arrayLength(arg) : 0;
  }
  defineProperty(Array.prototype, 'concat', { value: named(function (a, b) {
    var count = arguments.length, n = arrayLength(this) + spreadLength(a) + spreadLength(b);
    for (var k = 2; k < count; k++) n += spreadLength(arguments[k]);
    if (n > longestWalk) throw tooLong('Array.prototype.concat', n);
    switch (count) {
      case 0: return concat.call(this);
      case 1: return concat.call(this, a);
      case 2: return concat.call(this, a, b);
    }
    return applyFunction(concat, this, arguments);
  }, 'concat', 1), writable: true, configurable: true, enumerable: false });
  // An iterable is walked by its iterator, which runs no check point when it is an array's or a
  // typed array's own; any other's iterator is the script's code.
  function arrayLikeLength(source) {
    if (source == null) return 0;
    if (isArray(source)) return arrayLength(source);
    var typed = typedLengthOf(source);
    if (typed > 0) return typed;
    return typeof source[Symbol.iterator] === 'function' ? 0 : +source.length || 0;
  }
  walkBounded(Array, 'Array.', ['from'], function (_, source) { return arrayLikeLength(source); });
  // Typed arrays hold their elements for real: a walk over 2^30 of them (a sort, an indexOf, a
  // join) is seconds of a builtin. Their length is read where the builtins read it, inside the
  // object (the prototype's getter, `typedLengthOf`), which no property of a script's can change.
  walkBounded(TypedArray.prototype, 'TypedArray.prototype.',
              ['forEach', 'map', 'filter', 'reduce', 'reduceRight', 'every', 'some', 'find', 'findIndex', 'findLast',
               'findLastIndex', 'indexOf', 'lastIndexOf', 'includes', 'fill', 'join', 'toLocaleString', 'sort', 'reverse',
               'copyWithin', 'slice', 'toSorted', 'toReversed', 'with'],
              typedLengthOf);
  walkBounded(TypedArray.prototype, 'TypedArray.prototype.', ['set'], function (o, source) {
    return source !== null && typeof source === 'object' ? typedLengthOf(source) || arrayLength(source) : 0;
  });
  walkBounded(TypedArray, 'TypedArray.', ['from'], function (_, source) { return arrayLikeLength(source); });
  // The string builtins that make a string of a length they are given write it in one go:
  // `'x'.repeat(2 ** 30)` is a 1 GB allocation (four times the default heap growth limit, which
  // sees it only afterwards). The receiver, the count and the filler are converted once, here, in
  // the builtin's order (a `toString` or `valueOf` of a script's runs once); what the builtin
  // refuses (a receiver that is null, undefined or a symbol) reaches it as it came.
  function stringBounded(name, lengthOf) {
    var original = String.prototype[name];
    var bounded = function (count, fill) {
      if (this === null || this === undefined || typeof this === 'symbol') return applyFunction(original, this, arguments);
      var text = typeof this === 'string' ? this : `${this}`, n = +count;
      var filler = arguments.length > 1 && fill !== undefined ? `${fill}` : undefined;
      var made = lengthOf(text.length, n === n ? n : 0, filler);
      if (made > longestWalk) throw tooLong('String.prototype.' + name, made, 'characters');
      return arguments.length > 1 ? original.call(text, n, filler) : original.call(text, n);
    };
    defineProperty(String.prototype, name, { value: named(bounded, name, original.length), writable: true, configurable: true, enumerable: false });
  }
  function paddedLength(length, target, filler) { return filler === '' ? length : target; }
  stringBounded('repeat', function (length, count) { return length === 0 ? 0 : length * count; });
  stringBounded('padStart', paddedLength);
  stringBounded('padEnd', paddedLength);

  // The handshake: what the engine keeps of this file (RuntimeHandshake.swift), this file's value.
  return {
    // `_`-prefixed JS-only methods: defineClass writes its wrappers into this table directly.
    jsOnlyTable: jsOnlyMethods,
    // A native call's entries by argument count (`nativeEntries`).
    nativeEntries: nativeEntries,
    // What the engine checks its internal call with once, at start (InternalCall.swift): `this`,
    // both arguments and their count, or the second argument thrown.
    internalCallProbe: function (a, b) { if (a === 'throw') throw b; return [this, a, b, arguments.length]; },
    jsOnlyRemover: function (className, name, previous) {
      var table = jsOnlyMethods[className];
      if (!table) return;
      if (previous) table[name] = previous; else delete table[name];
    },
    // A script terminated by the time limit skips every `finally`: the engine resets the per-call
    // context of this frame after a termination (property stores through the C API, no JS: while
    // JavaScriptCore is still terminating, a JS resetter would be ended before it ran), so the next
    // call doesn't run with a stale self or script.
    callFrame: frame,
    // Forgets every name's kept call (`nativeCall`): the engine calls it after an entry whose JS
    // kept one without forgetting it (a block's or a hook's function, promise jobs, an ended entry).
    forgetKeptCalls: forgetKeptCalls,
    scriptGetter: function () { return frame.context.script === undefined ? null : frame.context.script; },
    // A script's top level runs with the context of no method (Engine.enterTopLevel), swapped in
    // and back by one call each: without JSLock (the App Store configuration) the engine's C API
    // calls each take JavaScriptCore's lock alone, and a thread that was out in a native call can
    // resume its JS between two of them and restore its own context. The swap back is made only
    // if the context is still the one swapped in; otherwise that thread has restored its own, and
    // putting back what was saved would leave its finished method as every later call's context.
    topLevelEnter: function () {
      var entered = { mine: { self: undefined, definingClass: null }, saved: frame.context, savedSelf: self };
      frame.context = entered.mine;
      self = undefined;
      return entered;
    },
    topLevelLeave: function (entered) {
      if (namesKeeping.length !== 0) forgetKeptCalls();
      // The context the engine put in place of the swapped-in one when this top level was ended
      // by a limit (`reset`) counts as it.
      if (frame.context !== entered.mine && frame.context !== entered.reset) return;
      frame.context = entered.saved;
      self = entered.savedSelf;
    }
  };
})(this);
