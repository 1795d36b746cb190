import XCTest
@testable import PatchEngine

/// Exact outputs of the `.name(` → `.__c(__pe.name||"name")(` rewrite.
final class PreprocessorTests: XCTestCase {
    private func assertRewrite(_ source: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        let result = Preprocessor.rewrite(source)
        XCTAssertEqual(result.code, expected, file: file, line: line)
        XCTAssertEqual(Preprocessor.rewrite(result.code).code, result.code, "rewriting twice changed it", file: file, line: line)
    }

    private func assertUnchanged(_ source: String, file: StaticString = #filePath, line: UInt = #line) {
        assertRewrite(source, source, file: file, line: line)
        XCTAssertEqual(Preprocessor.rewrite(source).rewriteCount, 0, file: file, line: line)
    }

    // MARK: JSPatch's documented examples

    func testJSPatchExamples() {
        assertRewrite(
            "self.view().setBackgroundColor(UIColor.redColor())",
            #"self.__c(__pe.view||"view")().__c(__pe.setBackgroundColor||"setBackgroundColor")(UIColor.__c(__pe.redColor||"redColor")())"#)
        assertRewrite(
            """
            require('UIView, UIColor, UITableView')
            defineClass('JPViewController', {
              viewDidLoad: function() {
                self.super().viewDidLoad()
                self.ORIGviewDidLoad()
                var ctrl = JPTableViewController.alloc().init()
                self.navigationController().pushViewController_animated(ctrl, YES)
                var path = NSIndexPath.indexPathForRow_inSection(0, 1)
              }
            })
            """,
            """
            require('UIView, UIColor, UITableView')
            defineClass('JPViewController', {
              viewDidLoad: function() {
                self.__c(__pe.super||"super")().__c(__pe.viewDidLoad||"viewDidLoad")()
                self.__c(__pe.ORIGviewDidLoad||"ORIGviewDidLoad")()
                var ctrl = JPTableViewController.__c(__pe.alloc||"alloc")().__c(__pe.init||"init")()
                self.__c(__pe.navigationController||"navigationController")().__c(__pe.pushViewController_animated||"pushViewController_animated")(ctrl, YES)
                var path = NSIndexPath.__c(__pe.indexPathForRow_inSection||"indexPathForRow_inSection")(0, 1)
              }
            })
            """)
        XCTAssertEqual(Preprocessor.rewrite("self.view().setBackgroundColor(UIColor.redColor())").rewriteCount, 3)
    }

    func testWhitespaceAndCommentsAroundTheNameAreKept() {
        assertRewrite("a . b ( )", #"a . __c(__pe.b||"b") ( )"#)
        assertRewrite("a\n  .b\n  (1)\n  .c(2)", "a\n  .__c(__pe.b||\"b\")\n  (1)\n  .__c(__pe.c||\"c\")(2)")
        assertRewrite("a./* x */b/* y */(1)", #"a./* x */__c(__pe.b||"b")/* y */(1)"#)
        assertRewrite("a.b // c\n(1)", "a.__c(__pe.b||\"b\") // c\n(1)")
        assertRewrite("a.b\r\n(1)", "a.__c(__pe.b||\"b\")\r\n(1)")
    }

    func testPropertyAccessWithoutCallIsLeftAlone() {
        assertUnchanged("a.b + c.d; e.f = g.h; x.y`t`; a.b?.(1); a?.[0](); a.b\n= c")
        assertRewrite("a.b.c.d()", #"a.b.c.__c(__pe.d||"d")()"#)
    }

    func testIdentifierCharacters() {
        assertRewrite("o.名前(); o.$x(); o._y(); o.a1_$()", #"o.__c(__pe.名前||"名前")(); o.__c(__pe.$x||"$x")(); o.__c(__pe._y||"_y")(); o.__c(__pe.a1_$||"a1_$")()"#)
        assertRewrite(#"o.\u0066oo(); o.b\u{61}r()"#, #"o.__c(__pe.\u0066oo||"\u0066oo")(); o.__c(__pe.b\u{61}r||"b\u{61}r")()"#)
        assertRewrite("o.if(); o.new(1); o.delete(k)", #"o.__c(__pe.if||"if")(); o.__c(__pe.new||"new")(1); o.__c(__pe.delete||"delete")(k)"#)
        assertUnchanged("this.#secret(); #secret in o")
    }

    func testStringsAreNeverRewritten() {
        assertUnchanged(#"var s = "a.b()" + 'c.d(' + "\".e()" + '\'.f()' + "\\"; g"#)
        assertRewrite(#"x("a.b()").c("d.e()")"#, #"x("a.b()").__c(__pe.c||"c")("d.e()")"#)
        // A line continuation inside a string.
        assertRewrite("var s = 'a\\\n.b()'; t.u()", "var s = 'a\\\n.b()'; t.__c(__pe.u||\"u\")()")
    }

    func testCommentsAreNeverRewritten() {
        assertRewrite(
            "// a.b()\n/* c.d()\n e.f() */ g.h() /* i.j() */ // k.l()",
            "// a.b()\n/* c.d()\n e.f() */ g.__c(__pe.h||\"h\")() /* i.j() */ // k.l()")
        assertRewrite("#!/usr/bin/env patch a.b()\nc.d()", "#!/usr/bin/env patch a.b()\nc.__c(__pe.d||\"d\")()")
        assertRewrite("x = 1 <!-- a.b()\n  --> c.d()\ne.f()", "x = 1 <!-- a.b()\n  --> c.d()\ne.__c(__pe.f||\"f\")()")
        assertRewrite("x-->y.z()", #"x-->y.__c(__pe.z||"z")()"#)  // not at the start of a line: `x-- > y.z()`
    }

    func testTemplateLiterals() {
        assertUnchanged("`a.b() ${1} c.d()`")
        assertRewrite("`t ${a.b()} u.v() ${c.d(`${e.f()}`)}`", #"`t ${a.__c(__pe.b||"b")()} u.v() ${c.__c(__pe.d||"d")(`${e.__c(__pe.f||"f")()}`)}`"#)
        assertRewrite("`${ {a: 1}.a } x.y() ${ [1].map(x => x) }`.trim()", #"`${ {a: 1}.a } x.y() ${ [1].__c(__pe.map||"map")(x => x) }`.__c(__pe.trim||"trim")()"#)
        assertRewrite("`\\${a.b()}`.c()", #"`\${a.b()}`.__c(__pe.c||"c")()"#)
        assertRewrite("`line\n${a.b()}\nline`", "`line\n${a.__c(__pe.b||\"b\")()}\nline`")
        assertRewrite("tag`a${x.y()}`.z()", #"tag`a${x.__c(__pe.y||"y")()}`.__c(__pe.z||"z")()"#)
    }

    func testRegexLiterals() {
        assertRewrite("/a.b(c)/.test(x)", #"/a.b(c)/.__c(__pe.test||"test")(x)"#)
        assertRewrite("s.replace(/[/]x.y(/g, '')", #"s.__c(__pe.replace||"replace")(/[/]x.y(/g, '')"#)
        assertRewrite(#"s.split(/\/a.b(/).c()"#, #"s.__c(__pe.split||"split")(/\/a.b(/).__c(__pe.c||"c")()"#)
        assertRewrite("x = /[\\]/]a.b(/i.exec(s)", #"x = /[\]/]a.b(/i.__c(__pe.exec||"exec")(s)"#)
        for keyword in ["return", "typeof", "case", "throw", "in", "delete", "void", "yield", "await", "else", "do", "instanceof", "of"] {
            assertRewrite("\(keyword) /a.b(/.c()", "\(keyword) /a.b(/.__c(__pe.c||\"c\")()")
        }
        for before in ["(", ",", "=", ":", "[", "!", "&", "|", "?", "{", "}", ";", "+", "=>", "&&", "\n"] {
            assertRewrite("\(before) /a.b(/.c()", "\(before) /a.b(/.__c(__pe.c||\"c\")()")
        }
        assertRewrite("if (x) /a.b(/.test(s)", #"if (x) /a.b(/.__c(__pe.test||"test")(s)"#)
        assertRewrite("while (f(x)) /a.b(/.test(s)", #"while (f(x)) /a.b(/.__c(__pe.test||"test")(s)"#)
    }

    func testDivisionIsNotARegex() {
        assertRewrite("a / b.c(d) / e", #"a / b.__c(__pe.c||"c")(d) / e"#)
        assertRewrite("f(a) / b.c(d) / e", #"f(a) / b.__c(__pe.c||"c")(d) / e"#)
        assertRewrite("a[0] / b.c(d) / e", #"a[0] / b.__c(__pe.c||"c")(d) / e"#)
        assertRewrite("this / b.c(d) / e", #"this / b.__c(__pe.c||"c")(d) / e"#)
        assertRewrite("1 / b.c(d) / 2", #"1 / b.__c(__pe.c||"c")(d) / 2"#)
        assertRewrite("'s' / b.c(d) / 2", #"'s' / b.__c(__pe.c||"c")(d) / 2"#)
        assertRewrite("i++ / b.c(d) / 2", #"i++ / b.__c(__pe.c||"c")(d) / 2"#)
        assertRewrite("x = {} / b.c(d) / 2", #"x = {} / b.__c(__pe.c||"c")(d) / 2"#)
        assertRewrite("a /= b.c(d) / 2", #"a /= b.__c(__pe.c||"c")(d) / 2"#)
        assertRewrite("o.return / b.c(d) / 2", #"o.return / b.__c(__pe.c||"c")(d) / 2"#)
        assertRewrite("`t` / b.c(d) / 2", #"`t` / b.__c(__pe.c||"c")(d) / 2"#)
    }

    func testNumbers() {
        assertRewrite("1..toFixed(2)", #"1..__c(__pe.toFixed||"toFixed")(2)"#)
        assertRewrite("1.5.toFixed(2)", #"1.5.__c(__pe.toFixed||"toFixed")(2)"#)
        assertRewrite(".5.toFixed(2)", #".5.__c(__pe.toFixed||"toFixed")(2)"#)
        assertRewrite("1 .toFixed(2)", #"1 .__c(__pe.toFixed||"toFixed")(2)"#)
        assertRewrite("1e3.toString(); 1.5e-3.toString(); 1E+3.toString()", #"1e3.__c(__pe.toString||"toString")(); 1.5e-3.__c(__pe.toString||"toString")(); 1E+3.__c(__pe.toString||"toString")()"#)
        assertRewrite("0x1F.toString(2); 0b10.toString(); 0o7.toString(); 1_000..toString(); 10n.toString()",
                      #"0x1F.__c(__pe.toString||"toString")(2); 0b10.__c(__pe.toString||"toString")(); 0o7.__c(__pe.toString||"toString")(); 1_000..__c(__pe.toString||"toString")(); 10n.__c(__pe.toString||"toString")()"#)
        assertUnchanged("1.toFixed(2)")  // a syntax error in JavaScript too; left for JavaScriptCore to report
        assertRewrite("a ? .5 : b.c()", #"a ? .5 : b.__c(__pe.c||"c")()"#)
    }

    func testOptionalCalls() {
        assertRewrite("a?.b(1)", #"a?.__c(__pe.b||"b")(1)"#)
        assertRewrite("a?.b.c?.d()", #"a?.b.c?.__c(__pe.d||"d")()"#)
        assertUnchanged("a?.b?.(1)")
    }

    func testNewKeepsItsConstructorExpression() {
        assertUnchanged("new a.b(1)")
        assertUnchanged("new a.b.c()")
        assertUnchanged("new a.b")
        assertUnchanged("new a.b\n.c(1)")
        assertRewrite("new a.b(1).c()", #"new a.b(1).__c(__pe.c||"c")()"#)
        assertRewrite("new X().foo().bar()", #"new X().__c(__pe.foo||"foo")().__c(__pe.bar||"bar")()"#)
        assertRewrite("new (a.b())", #"new (a.__c(__pe.b||"b")())"#)
        assertRewrite("new (a.b())(1).c()", #"new (a.__c(__pe.b||"b")())(1).__c(__pe.c||"c")()"#)
        assertRewrite("new (a.b)(1).c()", #"new (a.b)(1).__c(__pe.c||"c")()"#)
        assertRewrite("new a[b.c()].d(e.f())", #"new a[b.__c(__pe.c||"c")()].d(e.__c(__pe.f||"f")())"#)
        assertRewrite("new a.b(c.d()).e()", #"new a.b(c.__c(__pe.d||"d")()).__c(__pe.e||"e")()"#)
        assertRewrite("new new a.B()().c()", #"new new a.B()().__c(__pe.c||"c")()"#)
        assertRewrite("new a.b`t`(1).c()", #"new a.b`t`(1).__c(__pe.c||"c")()"#)
        assertRewrite("f(new a.b(1), c.d())", #"f(new a.b(1), c.__c(__pe.d||"d")())"#)
        assertRewrite("x = new a.b; c.d()", #"x = new a.b; c.__c(__pe.d||"d")()"#)
        assertRewrite("x = new A\nb.c()", "x = new A\nb.__c(__pe.c||\"c\")()")
        assertRewrite("new.target.foo()", #"new.target.__c(__pe.foo||"foo")()"#)
        assertUnchanged("new this.#kind.constructor(1)")
        assertRewrite("new function () { this.a.b() }", #"new function () { this.a.__c(__pe.b||"b")() }"#)
        assertRewrite("new Date().getTime()", #"new Date().__c(__pe.getTime||"getTime")()"#)
        assertRewrite("o.new(1).x()", #"o.__c(__pe.new||"new")(1).__c(__pe.x||"x")()"#)
    }

    func testSuperCallsKeepTheirMeaning() {
        assertUnchanged("class B extends A { m() { return super.m() } }")
        assertRewrite("super.m().n()", #"super.m().__c(__pe.n||"n")()"#)
        assertRewrite("self.super().m()", #"self.__c(__pe.super||"super")().__c(__pe.m||"m")()"#)  // JSPatch's own `super()` is a method
    }

    func testAlreadyRewrittenCallsAreLeftAlone() {
        assertUnchanged(#"a.__c("b")(1)"#)
        assertRewrite(#"a.__c("b")(1).c()"#, #"a.__c("b")(1).__c(__pe.c||"c")()"#)
    }

    func testEmptyAndTrivialInput() {
        assertUnchanged("")
        assertUnchanged("\n\n")
        assertUnchanged("x")
        assertUnchanged(".")
        assertUnchanged("/")
        assertUnchanged("a.")
    }

    func testMalformedInputIsCopiedAndLaterLinesStillRewritten() {
        assertRewrite("var s = 'a.b(\nc.d()", "var s = 'a.b(\nc.__c(__pe.d||\"d\")()")  // unterminated string stops at the line end
        assertRewrite("x = /a.b(\nc.d()", "x = /a.b(\nc.__c(__pe.d||\"d\")()")  // unterminated regex too
        assertRewrite("a.b() /* c.d()\ne.f()", "a.__c(__pe.b||\"b\")() /* c.d()\ne.f()")
        assertRewrite("a.b() `x ${c.d()} y.z()\n", "a.__c(__pe.b||\"b\")() `x ${c.__c(__pe.d||\"d\")()} y.z()\n")
        assertRewrite("`${a.b()", #"`${a.__c(__pe.b||"b")()"#)
        assertRewrite("f(a.b()))) ]]] }}} c.d()", #"f(a.__c(__pe.b||"b")()))) ]]] }}} c.__c(__pe.d||"d")()"#)
        assertRewrite("'\\", "'\\")
        assertRewrite("a.b(\\", #"a.__c(__pe.b||"b")(\"#)
        assertRewrite("o.\\", "o.\\")
    }

    func testLineTerminatorsAreKept() {
        let source = "a.b()\r\nc.d()\rE.f()\u{2028}g.h()\u{2029}i.j()"
        let result = Preprocessor.rewrite(source)
        XCTAssertEqual(result.code, "a.__c(__pe.b||\"b\")()\r\nc.__c(__pe.d||\"d\")()\rE.__c(__pe.f||\"f\")()\u{2028}g.__c(__pe.h||\"h\")()\u{2029}i.__c(__pe.j||\"j\")()")
        // Non-ASCII whitespace separates tokens like ASCII spaces do.
        assertRewrite("a.\u{00A0}b\u{3000}(1)", "a.\u{00A0}__c(__pe.b||\"b\")\u{3000}(1)")
    }
}
