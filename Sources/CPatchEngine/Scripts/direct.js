// PatchEngine: calls of methods defined in JS, made from JS, kept inside JS when no native
// layer sits on the method (DirectCalls.swift says when that is allowed and what keeps it true).
// runtime.js loads this file on the first such call (N.loadDirectCalls), hands it what it
// shares: `nativeCall` (a call through Objective-C), `frame` (the running method's context) and
// `OCObject` (the prototype of boxes); it gets back where states are kept and `resolve` (for a
// name, a number of arguments and an object: the caller to use). Per object, a DirectState
// keeps, for the current dispatch generation and the object's current class, one caller per
// name: a function calling the JS method directly, or null (through Objective-C). States are kept
// out of scripts' reach: a state's view reads the object's memory.
(function (N, runtime) {
  'use strict';

  var nativeCall = runtime.nativeCall, frame = runtime.frame, OCObject = runtime.OCObject;
  // JavaScriptCore's own Function: scripts' is wrapped to preprocess what it compiles (runtime.js).
  var makeFunction = runtime.makeFunction;
  // How an argument or result is checked: DirectValueCode (DirectCalls.swift), by name.
  var V = N.codes.value;


  // Keeps each box's DirectState on a private field, which a box gains by "constructing" this
  // class on it (its base class returns its argument): found with one cached property load, and
  // no script can see or forge it. The engine learns the structure a stamped box gets (BoxBits)
  // from this class, handed back as `states`.
  var directStates = class DirectStamp extends (function (o) { return o; }) {
    #state;
    constructor(o, state) { super(o); this.#state = state; }
    static get(o) { return #state in o ? o.#state : undefined; }
    static set(o, state) { if (#state in o) o.#state = state; else new DirectStamp(o, state); }
  };

  function DirectState(info) {
    // The object's class word: where all of its bits say the class, one double read (a class
    // pointer's bits are never a NaN's); else two int32s and the masks of their class bits.
    this.view = info.view;
    this.masked = info.masked;
    this.word = info.word;
    this.mask0 = info.mask0; this.mask1 = info.mask1;
    this.word0 = info.word0; this.word1 = info.word1;
    this.index = info.index;             // the receiver's class's dispatch generation counter
    this.generation = info.generation;
    this.callers = [];
    this.made = [];   // per name: the last caller made and what it was made for (see resolveDirect)
  }

  // Asks native code about `rec.name` with `argc` arguments on `obj`, keeps the answer, returns
  // the caller to use.
  function resolveDirect(obj, rec, argc) {
    var st = directStates.get(obj);
    var info = N.resolveDirect(obj, rec.name, argc, st === undefined);
    if (info === null) return nativeCall(obj, rec);   // not a box with a class word: never direct
    if (rec.numbers[argc] === undefined) rec.numbers[argc] = info.number;
    if (st === undefined) {
      st = new DirectState(info);
      directStates.set(obj, st);
    } else if (st.generation !== info.generation || st.index !== info.index || st.word0 !== info.word0 || st.word1 !== info.word1) {
      st.index = info.index;
      st.generation = info.generation;
      st.word = info.word;
      st.word0 = info.word0;
      st.word1 = info.word1;
      st.callers = [];
    }
    var caller = null;
    if (info.method !== undefined && argc <= 6) {
      // A dispatch generation passes whenever any class's dispatch changes; a caller made for the
      // same method, arguments and types is kept, so that a call site keeps seeing the function
      // it was compiled for instead of a new one after every patch, hook or revert anywhere.
      var key = info.number + ':' + info.codes.join(',') + ':' + info.result + ':' + info.impKey;
      var made = st.made[rec.id];
      if (made !== undefined && made.method === info.method && made.argc === argc && made.key === key) {
        caller = made.caller;
      } else {
        caller = directCaller(obj, rec, argc, info);
        st.made[rec.id] = { method: info.method, argc: argc, key: key, caller: caller };
      }
    }
    // Filled up to the index first: an array whose first element lands far beyond its length
    // becomes sparse (runtime.js, PlainName's `id`), and `__c`, which reads every state's
    // callers, would then be compiled for sparse arrays at every call site of the process.
    var callers = st.callers;
    while (callers.length < rec.id) callers.push(undefined);
    callers[rec.id] = caller;
    return caller === null ? nativeCall(obj, rec) : obj === self ? caller.sameSelf : caller;
  }

  // Codes (`V`): object (id), int8 (char), uint8, int16 (short), uint16, int32 (int), uint32,
  // int64, uint64, float, double, bool (BOOL), void. A value the round trip through Objective-C gives back unchanged is passed on; anything else
  // is converted natively, exactly as a send converts it.
  function isPlainBox(v) {
    return Object.getPrototypeOf(v) === OCObject && v.__handle !== undefined;
  }

  function convertArgument(obj, number, index, v) { return N.convertArgument(obj, number, index, v); }

  // The rest of a call JS can't finish: the result converted, or (`failed`) the error reported and
  // the original implementation's result, as for a native caller.
  function finishDirect(obj, number, value, failed, args) {
    return N.finishDirect.apply(null, [obj, number, value, failed].concat(args));
  }

  // A directly called method threw: the running context back, then as a native caller's call
  // (reported, and the original implementation's result instead).
  function failed(saved, savedSelf, obj, number, error, args) {
    frame.context = saved;
    self = savedSelf;
    return finishDirect(obj, number, error, true, args);
  }

  // Statements that make argument `a<i>` (type `code`) what the round trip would deliver. An
  // argument beyond the selector's (no code) reaches the JS method as it was passed, as in JSPatch.
  function argumentSource(code, i) {
    if (code === undefined) return '';
    var a = 'a' + i, convert = a + ' = convertArgument(obj, number, ' + i + ', ' + a + ');';
    // Only numbers are checked in JS: a BigInt, a Symbol or an object can't be mixed into
    // arithmetic without a throw (or a call of its valueOf) the round trip would not make.
    function integer(expression) {
      return "if (typeof " + a + " === 'number' && (t = " + expression + ') === ' + a + ') ' + a + ' = t; else ' + convert;
    }
    switch (code) {
      case V.object: return 'if (!(typeof ' + a + " === 'number' || typeof " + a + " === 'boolean' || (typeof " + a +
                     " === 'object' && " + a + ' !== null && isPlainBox(' + a + ')))) ' + a + ' = ' + a + ' === undefined || ' +
                     a + ' === null ? false : convertArgument(obj, number, ' + i + ', ' + a + ');';
      case V.int8: return integer(a + ' << 24 >> 24');
      case V.uint8: return integer(a + ' & 0xff');
      case V.int16: return integer(a + ' << 16 >> 16');
      case V.uint16: return integer(a + ' & 0xffff');
      case V.int32: case V.int64: return integer(a + ' | 0');
      case V.uint32: case V.uint64: return integer(a + ' >>> 0');
      case V.float: return 'if (typeof ' + a + " === 'number') " + a + ' = Math.fround(' + a + '); else ' + convert;
      case V.double: return 'if (typeof ' + a + " !== 'number') " + convert;
      default: return a + ' = !!' + a + ';';
    }
  }

  // Statements that return result `r` (type `code`) when it is what the round trip would give back.
  function resultSource(code) {
    function integer(expression) { return "if (typeof r === 'number' && (t = " + expression + ') === r) return t;'; }
    switch (code) {
      case V.void: return "if (typeof r !== 'object' || r === null) return undefined;";
      case V.object: return "if (typeof r === 'number' || typeof r === 'boolean') return r; if (r === undefined || r === null) return false;" +
                     " if (typeof r === 'object' && isPlainBox(r)) return r;";
      case V.int8: return integer('r << 24 >> 24');
      case V.uint8: return integer('r & 0xff');
      case V.int16: return integer('r << 16 >> 16');
      case V.uint16: return integer('r & 0xffff');
      case V.int32: case V.int64: return integer('r | 0');
      case V.uint32: case V.uint64: return integer('r >>> 0');
      case V.float: return "if (typeof r === 'number') return Math.fround(r);";
      case V.double: return "if (typeof r === 'number') return r;";
      default: return "if (typeof r === 'boolean') return r; if (typeof r !== 'object' || r === null) return !!r;";
    }
  }

  // The source of a caller factory for `k` arguments of types `codes` and a result of type `result`:
  // what runtime.js's wrapper does for a native call, with the user's function called directly.
  // The factory makes two callers: the general one, and (its `sameSelf`) one for a call whose
  // receiver is `self` already (self.value() in a method of the same class), which stores no
  // `self`: a store of the global in the loop around the call made JavaScriptCore load `self`
  // again, and check its state again, on every iteration (≈ 3.7 ns a call instead of ≈ 1.4).
  // It still behaves as the general one: a `self` changed between `__c` and the call (by the
  // arguments) sends the call to the general caller, and a callee's assignment to `self` is undone
  // through `selfKeeper.restore`, a property access JavaScriptCore compiles as an exit until it
  // runs, so no store of `self` stays in the loop (a plain conditional store: ≈ 4.2 ns).
  function callerSource(k, codes, result) {
    var names = [];
    for (var i = 0; i < k; i++) names.push('a' + i);
    var list = names.join(', '), conversions = [];
    for (i = 0; i < k; i++) conversions.push(argumentSource(codes[i], i));
    // The rare paths are calls (a wrong argument count, a throw, a result to convert): a caller's
    // size decides whether JavaScriptCore inlines it into the call site.
    function body(sameSelf) {
      return 'function (' + list + ') {\n' +
        '    if (arguments.length !== ' + k + ' || imp[0] !== imp0 || imp[1] !== imp1) return nativeCall(obj, rec).apply(null, arguments);\n' +
        (sameSelf
          ? '    if (self !== obj) return caller.apply(null, arguments);\n' +
            '    var t, r, saved = frame.context;\n'
          : '    var t, r, saved = frame.context, savedSelf = self;\n') +
        '    ' + conversions.join('\n    ') + '\n' +
        '    frame.context = method;\n' +
        (sameSelf ? '' : '    self = obj;\n') +
        '    try { r = fn.call(obj' + (k ? ', ' + list : '') + '); }\n' +
        '    catch (error) { return failed(saved, ' + (sameSelf ? 'obj' : 'savedSelf') + ', obj, number, error, [' + list + ']); }\n' +
        '    frame.context = saved;\n' +
        (sameSelf ? '    if (self !== obj) selfKeeper.restore(obj);\n' : '    self = savedSelf;\n') +
        '    ' + resultSource(result) + '\n' +
        '    return finishDirect(obj, number, r, false, [' + list + ']);\n' +
        '  }';
    }
    return '"use strict"; return function (obj, rec, method, number, imp, imp0, imp1) {\n' +
      '  var fn = method.fn;\n' +
      '  var caller = ' + body(false) + ';\n' +
      "  Object.defineProperty(caller, 'sameSelf', { value: " + body(true) + ' });\n' +
      '  return caller;\n' +
      '};';
  }

  // A method called with `self` as its receiver assigned `self`: put back, as the general caller
  // would. Called through a property so that, unprofiled, it costs the loop nothing.
  var selfKeeper = { restore: function (obj) { self = obj; } };

  // The caller of JS method `method` (runtime.js's wrapper) for `k` arguments on `obj`. Each JS
  // method (and number of arguments) gets code of its own, with its types' checks written in:
  // JavaScriptCore profiles every copy apart, so the calls in it see one method each and are
  // inlined, however many other methods are called from JS; with one shared caller, a call from a
  // loop inside another JS method cost ≈ 15 ns instead of ≈ 2, and any mix of methods ≈ 14 ns.
  function directCaller(obj, rec, k, info) {
    var method = info.method, codes = info.codes, result = info.result;
    var factories = method.directCallers;
    if (factories === undefined) {
      factories = [];
      Object.defineProperty(method, 'directCallers', { value: factories });
    }
    var factory = factories[k];
    if (factory === undefined) {
      factory = factories[k] = new makeFunction('nativeCall, convertArgument, finishDirect, failed, isPlainBox, frame, selfKeeper',
                                            callerSource(k, codes, result))(nativeCall, convertArgument, finishDirect, failed,
                                                                            isPlainBox, frame, selfKeeper);
    }
    return factory(obj, rec, method, info.number, info.impView, info.imp0, info.imp1);
  }

  return { states: directStates, resolve: resolveDirect };
})
