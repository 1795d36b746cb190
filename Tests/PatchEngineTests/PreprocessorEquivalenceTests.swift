import XCTest
@testable import PatchEngine

/// Plain JavaScript (no Objective-C) gives the same result before and after the rewrite,
/// evaluated by JavaScriptCore with a plain-JS `__c` dispatcher.
final class PreprocessorEquivalenceTests: XCTestCase {
    /// Each program's completion value is compared as JSON.
    static let corpus: [(name: String, script: String)] = [
        ("string methods", #"""
            var s = "Hello, World";
            [s.toUpperCase(), s.split(", ").map(function (x) { return x.toLowerCase() }).join("|"),
             "abc".charAt(1), s.replace(/o/g, "0").slice(2), "  pad ".trim().padStart(5, "*"), s.indexOf("W")]
            """#),
        ("array methods", """
            var a = [5, 1, 4];
            a.push(3); a.unshift(9);
            var popped = a.pop();
            [a.slice().sort(function (x, y) { return x - y }), a.reduce(function (s, v) { return s + v }, 0),
             a.filter(function (v) { return v > 3 }).length, a.indexOf(4), a.concat([7], [8]).reverse(), popped,
             Array.from({ length: 3 }, (_, i) => i * i), Array.isArray(a), a.includes(9)]
            """),
        ("regexes with slashes in classes", #"""
            var r = /[/\]]+/g;
            ["a/b]c//d".split(r).join(","), "x/y".replace(/[/]/, "-"), /a\/b/.test("a/b"),
             "p.q(r)".replace(/\.q\(/, ".Q("), /[^/]+$/.exec("dir/file.js")[0], "a/b/c".match(/\//g).length]
            """#),
        ("template literals with nested calls", #"""
            var n = [1, 2, 3];
            var t = `sum ${n.reduce((a, b) => a + b, 0)} and ${`inner ${n.map(x => x * 2).join("-")} .not(a) call`}`;
            [t, `${ {k: "v"}.k }`, `a.b() ${"c.d()".toUpperCase()}`.length, `\${n.join()}`]
            """#),
        ("comments containing calls", """
            var log = [];
            // log.push("line comment")
            /* log.push("block comment")
               log.push("second line") */
            log.push("code"); /* log.push("after") */ log.push("more") // log.push("end")
            log
            """),
        ("division versus regex", """
            var a = 10, g = 2, b = { c: function (x) { return x } };
            var re = 5, i = 4;
            [a / b.c(5) / g, a /b.c(2)/ g, (a) / b.c(5), [a][0] / 2, i++ / 2, i, "a/b".split("/").length / 2,
             40 / re / g, typeof /x/.source, a /= 2]
            """),
        ("getters returning methods", """
            var count = 0;
            var o = { get f() { count++; return function () { return this === o } } };
            [o.f(), o.f(), count]
            """),
        ("closures", """
            function make() { var c = 0; return { inc: function () { return ++c }, get: function () { return c } } }
            var k = make(), j = make();
            k.inc(); k.inc(); j.inc();
            [k.get(), j.get(), k.inc()]
            """),
        ("new with calls on the result", """
            [new Date(86400000).getTime(), new Date(0).toISOString(), new Array(3).fill(0).join(""),
             new (String)("x").toUpperCase(), new RegExp("a.b").test("axb")]
            """),
        ("new on a member expression", """
            var a = { b: function (v) { this.v = v } };
            a.b.prototype.get = function () { return this.v * 2 };
            var ns = { x: { Y: function () { this.k = "y" } } };
            var o = new a.b(21);
            [o.v, o.get(), new a.b(2).get(), o instanceof a.b, new ns.x.Y().k, new ns.x.Y instanceof ns.x.Y,
             new (ns.x.Y)().k]
            """),
        ("method chains over newlines", """
            [3, 1, 2]
              .sort()
              .map(function (x) { return x * 10 })
              // a comment in the chain
              .filter(function (x) { return x > 10 })
              /* and another */ .join(",")
            """),
        ("labels", """
            var log = [];
            outer: for (var i = 0; i < 3; i++) {
              for (var j = 0; j < 3; j++) {
                if (j == 1) continue outer;
                if (i == 2) break outer;
                log.push(i + "," + j);
              }
            }
            log
            """),
        ("automatic semicolon insertion", """
            function f() {
              return
                "unreached".toUpperCase()
            }
            var x = 5
            ;[1, 2].forEach(function (v) { x += v })
            var s = "asi"
              .toUpperCase()
            var i = 1, k = 1
            i
            ++k
            [f(), x, s, i, k]
            """),
        ("classes and super", """
            class A { hi() { return "A" } static make() { return new this() } }
            class B extends A { hi() { return super.hi() + "B" } twice() { return this.hi() + this.hi() } }
            [new B().hi(), B.make().twice(), new B() instanceof A]
            """),
        ("primitive receivers", """
            Number.prototype.kind = function () { "use strict"; return typeof this };
            String.prototype.sloppyKind = function () { return typeof this };
            [(5).kind(), "s".sloppyKind(), true.toString(), (12.5).toFixed(0), "abc".toUpperCase()]
            """),
        ("number literals", """
            [1..toFixed(2), 1.5.toFixed(1), .5.toFixed(2), 1e3.toString(), 0xff.toString(2), 1 .toString(),
             1_000..toString(), 10n.toString(), 2e-3.toExponential()]
            """),
        ("optional chaining", """
            var o = { f: function () { return 1 }, p: { q: function () { return 2 } } }, n = null;
            [o?.f(), n?.f(), o.g?.(), o?.p.q(), n?.p.q()]
            """),
        ("call apply bind", """
            function f(a, b) { return this.x + a + b }
            [f.call({ x: 1 }, 2, 3), f.apply({ x: 1 }, [2, 3]), f.bind({ x: 10 })(1, 1)]
            """),
        ("this in methods", """
            var obj = { v: 3, m: function () { return this.v }, n: function () { return this.m() * 2 } };
            var other = { v: 7, m: obj.m };
            [obj.n(), other.m(), obj.m.call(other)]
            """),
        ("spread and Math", """
            var xs = [1, 5, 3];
            [Math.max(...xs), Math.min.apply(null, xs), Math.floor(2.7), Math.pow(2, 10), [...xs, ...[9]].length]
            """),
        ("JSON", """
            [JSON.parse('{"a.b()": 1}')["a.b()"], JSON.stringify({ x: [1].concat([2]) }), Object.keys({ p: 1, q: 2 }).join()]
            """),
        ("regex after keywords", #"""
            function t(s) { return /^a.b\(/.test(s) }
            function u(s) { switch (s) { case /x/.source: return "x"; default: return typeof /y/.exec(s) } }
            var r = null;
            if (true) /a.b/.test("a.b") ? r = "yes" : r = "no";
            var n = 0;
            /a'b.c\(/.test("a'b.c(") && n++;
            { n++ } /x"y.z\(/.test('x"y.z(') && n++;
            [t("a.b("), t("ab("), u("x"), u("y"), r, n]
            """#),
        ("arguments", """
            function g() { return Array.prototype.slice.call(arguments, 1).join("") }
            g(1, 2, 3)
            """),
        ("errors caught inside", """
            var out = [];
            try { null.foo() } catch (e) { out.push(e instanceof TypeError) }
            try { ({}).missing() } catch (e) { out.push(e.constructor.name) }
            try { undefinedName.x() } catch (e) { out.push(e.name) }
            out
            """),
        ("Map and Set", """
            var m = new Map();
            m.set("a", 1).set("b", 2);
            var s = new Set([1, 2, 2, 3]);
            [m.get("b"), m.has("c"), m.size, [...m.keys()].join(), s.size, s.has(2)]
            """),
        ("generators", """
            function* gen() { yield 1; yield /a/.source; return 3 }
            var it = gen();
            [it.next().value, it.next().value, it.next().done]
            """),
        ("the dispatcher is invisible", """
            var o = { a: 1 }, keys = [];
            for (var k in o) keys.push(k);
            [keys.join(), o.hasOwnProperty("a"), Object.keys([1, 2]).join(), JSON.stringify(o)]
            """),
        ("unicode identifiers", """
            var obj = { 名前: function () { return "名" }, $x: function () { return "$" }, _y: function () { return "_" } };
            obj.名前() + obj.$x() + obj._y() + obj.\\u0024x()
            """),
        ("tagged templates", """
            function tag(s, ...v) { return s.raw.join("|") + ":" + v.join(",") }
            [tag`a${[1, 2].join("")}b${"c".repeat(2)}`, String.raw`x\\ny${"z".toUpperCase()}`]
            """),
        ("object literal division and blocks", """
            var q = { valueOf: function () { return 8 } } / 2;
            var w;
            { w = [1, 2].map(function (v) { return v / 2 }).join("/") }
            [q, w]
            """),
        ("arrow functions and async shapes", """
            var add = (a, b) => a + b, sq = x => ({ v: x * x }).v;
            var p = [1, 2, 3].map(x => add(x, 1)).map(sq);
            [p, typeof Promise.resolve(1).then, [1, 2].every(x => x > 0)]
            """),
        ("getters setters and defineProperty", """
            var o = {};
            Object.defineProperty(o, "x", { get: function () { return this._x * 2 }, set: function (v) { this._x = v } });
            o.x = 4;
            [o.x, Object.getOwnPropertyNames(o).sort().join(), o.propertyIsEnumerable("x")]
            """),
    ]

    func testCorpusBehavesTheSameAfterTheRewrite() {
        for (name, script) in Self.corpus {
            let rewritten = Preprocessor.rewrite(script)
            XCTAssertGreaterThan(rewritten.rewriteCount, 0, "\(name): nothing was rewritten, so nothing was tested")
            XCTAssertNotEqual(rewritten.code, script, name)
            let before = PreprocessorJSContext().evaluate(script)
            let after = PreprocessorJSContext().evaluate(rewritten.code)
            guard case .value = before else {
                XCTFail("\(name): the original program failed: \(before)")
                continue
            }
            XCTAssertEqual(after, before, "\(name)\n\(rewritten.code)")
        }
    }

    /// The dispatcher is really used: without it every rewritten program fails.
    func testRewrittenCodeDependsOnTheDispatcher() {
        let script = Self.corpus[0].script
        let outcome = PreprocessorJSContext(withDispatcher: false).evaluate(Preprocessor.rewrite(script).code)
        guard case .exception(let message, _, _) = outcome else {
            return XCTFail("expected an exception, got \(outcome)")
        }
        XCTAssertTrue(message.contains("__c"), message)
    }

    /// Rewriting the corpus is idempotent, and line counts never change.
    func testCorpusRewriteIsIdempotentAndKeepsLines() {
        for (name, script) in Self.corpus {
            let once = Preprocessor.rewrite(script).code
            XCTAssertEqual(Preprocessor.rewrite(once).code, once, name)
            XCTAssertEqual(once.split(separator: "\n", omittingEmptySubsequences: false).count,
                           script.split(separator: "\n", omittingEmptySubsequences: false).count, name)
        }
    }

    /// Every prefix of every corpus program (most of them unterminated strings, templates,
    /// comments or regexes) is handled without crashing, and keeps its lines.
    func testTruncatedProgramsAreHandled() {
        for (name, script) in Self.corpus {
            let bytes = Array(script.utf8)
            for cut in 0...bytes.count {
                let prefix = String(decoding: bytes[..<cut], as: UTF8.self)
                let code = Preprocessor.rewrite(prefix).code
                XCTAssertEqual(code.filter { $0 == "\n" }.count, prefix.filter { $0 == "\n" }.count, "\(name) cut at \(cut)")
            }
        }
    }

    /// Random token soup: no crash, no hang, lines kept, and removing the inserted text
    /// gives back the input exactly.
    func testRandomTokenSoup() {
        let pieces = ["a", ".", "b", "(", ")", "[", "]", "{", "}", "`", "${", "'", "\"", "/", "*", "//", "/*", "*/",
                      "\\", "\n", "\r\n", " ", "new", "super", "return", "1", ".5", "?.", "?", ":", ";", "=>", "é",
                      "\u{2028}", "#", "<!--", "-->", "__c", "x.y(", "1e", "0x"]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            var source = ""
            for _ in 0..<(Int(seed >> 60) + 4) {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                source += pieces[Int(seed >> 33) % pieces.count]
            }
            let result = Preprocessor.rewrite(source)
            XCTAssertEqual(result.code.filter { $0 == "\n" || $0 == "\r\n" }.count,
                           source.filter { $0 == "\n" || $0 == "\r\n" }.count, source)
            XCTAssertEqual(Self.undoRewrite(result), source)
        }
    }

    /// Removes the rewrites using the recorded insertions, checking that each one is
    /// exactly `__c(__pe.NAME||"NAME")` around a name of the source.
    private static func undoRewrite(_ result: Preprocessed) -> String {
        var code = Array(result.code.utf8)
        let prefix = Array("__c(__pe.".utf8), middle = Array("||\"".utf8), end = Array("\")".utf8)
        for (k, insertion) in result.insertions.enumerated().reversed() {
            let at = insertion.outputStart, length = Int(insertion.length)
            let name = Array(code[(at + prefix.count)..<(at + prefix.count + length)])
            let rewritten = prefix + name + middle + name + end
            guard at + rewritten.count <= code.count, Array(code[at..<(at + rewritten.count)]) == rewritten else {
                return "insertion \(k) is not __c(__pe.NAME||\"NAME\")"
            }
            code.replaceSubrange(at..<(at + rewritten.count), with: name)
        }
        return String(decoding: code, as: UTF8.self)
    }
}
