/// The single-pass JavaScript lexer behind `Preprocessor`: it walks UTF-8 bytes, skips
/// strings, templates, comments and regular expressions, and rewrites each method-call
/// name `expr.name(` into `expr.__c(__pe.name||"name")(`.
///
/// It only knows as much JavaScript as it needs to tell code from literals and comments
/// (the previous significant token decides whether `/` starts a regex) and to leave the
/// callee of `new` alone. Output is built by copying untouched spans of the input in bulk.
struct ScriptLexer {
    /// One rewritten name, in input coordinates; the mapping back to the source uses these.
    struct Insertion: Sendable, Equatable {
        /// 1-based line, counted the way JavaScriptCore counts lines.
        var line: Int32
        /// Byte length of the identifier (`__c(__pe.` goes before it, `||"`, the name again and
        /// `")` after it).
        var length: Int32
        /// Byte offset of the first byte of `line` in the input.
        var lineStart: Int
        /// Byte offset of the identifier in the input.
        var start: Int
        /// Byte offset of the inserted `__c(__pe.` (or check point) in the output.
        var outputStart: Int
        /// Bytes of a check point inserted at `start` (`CheckPoint`); 0 for a rewritten call.
        var inserted: Int32 = 0
    }

    /// The check points the engine inserts (`Preprocessor.prepare`): a decrement of the VM's
    /// counter (`__peTick`, an `Int32Array` over native memory) that calls the engine's
    /// `__peTock` when it reaches zero (`ExecutionTimeLimit`). Each is a prefix of the code it
    /// guards, on the same line: an unbraced body and a dangling `else` keep their meaning.
    enum CheckPoint: UInt8 {
        /// Before a loop body: `while (c) x()` → `while (c) if(…);else x()`.
        case statement
        /// First in a function body, after its directives: `{ "use strict"; ;var __peTicked=…; x() }`.
        /// Its value is kept in a local: as a bare expression statement the same test cost a JS
        /// method call ≈ 1.4 ns more (measured with the C API: 1.09 → 2.45 ns a call, 1.36 ns with
        /// the local), for reasons inside JavaScriptCore's optimiser.
        case functionBody
        /// Before an arrow's expression body: `x => x + 1` → `x => …?0:x + 1` (`tock` returns false).
        case arrowExpression

        var text: [UInt8] {
            switch self {
            case .statement: return CheckPoint.statementText
            case .functionBody: return CheckPoint.functionText
            case .arrowExpression: return CheckPoint.arrowText
            }
        }

        static let statementText = Array("if(--__peTick[0]<__peTick[1]&&__peTock());else ".utf8)
        static let functionText = Array(";var __peTicked=--__peTick[0]<__peTick[1]&&__peTock();".utf8)
        static let arrowText = Array("--__peTick[0]<__peTick[1]&&__peTock()?0:".utf8)
        /// Names scripts may not use (in any spelling): they would reach the counter.
        static let reservedNames: [[UInt8]] = [Array("__peTick".utf8), Array("__peTock".utf8), Array("__peTicked".utf8)]
    }

    /// Where the next token gets a check point.
    private enum Pending: UInt8 {
        case none
        /// A loop body starts (after `while (…)`, `for (…)`, `do`).
        case loopBody
        /// A function body's first token (or a directive).
        case functionBody
        /// After a string at the start of a function body: a directive if `;`, `}` or a line break ends it.
        case directive
        /// After `=>`: a block body or an expression body.
        case arrowBody
    }

    /// What the previous significant token was, as far as the next token cares.
    private enum Prev: UInt8 {
        /// Ends an operand (identifier, literal, `)`, `]`): `/` divides, `{` opens a block.
        case operand
        /// An operator or expression keyword: `/` starts a regex, `{` an object literal.
        case punctuator
        /// Start of a statement (`;`, block braces, `=>`, `else`, …): regex and block both.
        case statementStart
        /// `.` or `?.`: the next identifier is a property name.
        case dot
        /// `super.`: a call through it must keep `super`'s semantics, so it is not rewritten.
        case superDot
        /// `new`: the next tokens are the constructor expression.
        case newKeyword
        /// `if`, `for`, `while`, `with`: the `(` after it closes into a statement start.
        case controlKeyword
        /// `super`
        case superKeyword
    }

    /// What an open bracket on the nesting stack was.
    private enum Nest: UInt8 {
        case paren, controlParen, bracket, blockBrace, objectBrace, templateSubstitution
        /// The head of `for`/`while` (not a do-while's tail): a loop body follows its `)`.
        case loopParen
    }

    private let src: UnsafePointer<UInt8>
    private let end: Int
    private var i = 0
    private var line: Int32 = 1
    private var lineStart = 0
    private var prev = Prev.statementStart
    /// Number of `new` keywords at the current nesting level still waiting for their
    /// argument list: while it is non-zero, `.name(` is part of a constructor expression.
    private var newPending = 0
    /// Open brackets; each entry packs its `Nest` kind with the `newPending` of the level
    /// it interrupted (restored when it closes).
    private var stack: [Int] = []

    private(set) var output: [UInt8] = []
    private var copied = 0
    private(set) var insertions: [Insertion] = []

    // Check points (`checkPoints`): what the previous token was, as far as they care.
    private let checkPoints: Bool
    private var pending = Pending.none
    /// The string that may be a directive, and its line.
    private var directiveStart = 0, directiveLine: Int32 = 0, directiveLineStart = 0
    /// The next `(` opens a loop's head (`for`, `while`), not another control keyword's.
    private var loopKeyword = false
    /// Nesting depths of `do` statements whose `while` tail is still to come.
    private var doDepths: [Int] = []
    /// Nesting depths of `class` keywords whose body `{` is still to come; `classFresh`: the
    /// keyword was the previous token.
    private var classDepths: [Int] = []
    private var classFresh = false
    /// Set by the token just lexed, read by the next one.
    private var endedStatement = false, closedParams = false, lineBreak = false
    private var prevEndedStatement = false, prevClosedParams = false, prevLineBreak = false
    /// The first reserved name (`CheckPoint.reservedNames`) in code: 1-based line, byte offsets
    /// of its line and of itself.
    private(set) var reserved: (line: Int32, lineStart: Int, start: Int)?

    init(_ source: UnsafeBufferPointer<UInt8>, checkPoints: Bool = false, functionBody: Bool = false) {
        // An empty buffer may have a nil base; nothing is read from it then.
        src = source.baseAddress ?? UnsafePointer(bitPattern: 1)!
        end = source.count
        self.checkPoints = checkPoints
        if checkPoints && functionBody { pending = .functionBody }
    }

    /// Runs the whole input. Afterwards `insertions` lists every rewrite; when there is at
    /// least one, `output` holds the complete rewritten script.
    mutating func run() {
        if end >= 2 && src[0] == Ch.hash && src[1] == Ch.bang { skipLineComment() }  // hashbang line
        while i < end {
            let c = src[i]
            if checkPoints && startsToken(c) { tokenStarts(c) }
            switch c {
            case Ch.space, Ch.tab, Ch.verticalTab, Ch.formFeed:
                i += 1
            case Ch.lf:
                i += 1
                newLine()
            case Ch.cr:
                i += 1
                if i < end && src[i] == Ch.lf { i += 1 }
                newLine()
            case Ch.slash:
                let n = peek(1)
                if n == Ch.slash {
                    skipLineComment()
                } else if n == Ch.star {
                    skipBlockComment()
                } else if prev != .operand {
                    scanRegex()
                    prev = .operand
                    newPending = 0
                } else {
                    i += 1
                    prev = .punctuator
                    newPending = 0
                }
            case Ch.quote, Ch.apostrophe:
                scanString(quote: c)
                prev = .operand
                newPending = 0
            case Ch.backtick:
                i += 1
                scanTemplate()
            case Ch.zero...Ch.nine:
                scanNumber()
                prev = .operand
                newPending = 0
            case Ch.dot:
                let n = peek(1)
                if isDigit(n) {
                    scanNumber()
                    prev = .operand
                    newPending = 0
                } else if n == Ch.dot && peek(2) == Ch.dot {
                    i += 3  // spread
                    prev = .punctuator
                    newPending = 0
                } else {
                    i += 1
                    if prev == .superKeyword {
                        prev = .superDot
                    } else {
                        if prev == .newKeyword && newPending > 0 { newPending -= 1 }  // `new.target`
                        prev = .dot
                    }
                }
            case Ch.question:
                if peek(1) == Ch.dot && !isDigit(peek(2)) {  // `?.`, not `? .5 : x`
                    i += 2
                    prev = .dot
                } else {
                    i += 1
                    prev = .punctuator
                    newPending = 0
                }
            case Ch.lparen:
                var kind = Nest.paren
                if prev == .controlKeyword {
                    kind = loopKeyword ? .loopParen : .controlParen
                } else if newPending > 0 && prev != .newKeyword {
                    newPending -= 1  // the argument list of the innermost pending `new`
                }
                i += 1
                push(kind)
                prev = .punctuator
            case Ch.rparen:
                i += 1
                let kind = pop(unless: .templateSubstitution)
                prev = kind == .controlParen || kind == .loopParen ? .statementStart : .operand
                if kind == .loopParen && checkPoints { pending = .loopBody }
                closedParams = kind == .paren
            case Ch.lbracket:
                i += 1
                push(.bracket)
                prev = .punctuator
            case Ch.rbracket:
                i += 1
                _ = pop(unless: .templateSubstitution)
                prev = .operand
            case Ch.lbrace:
                i += 1
                let block: Bool
                switch prev {
                case .operand, .statementStart, .controlKeyword: block = true
                default: block = false
                }
                newPending = 0
                if checkPoints && block {
                    if classDepths.last == stack.count {
                        classDepths.removeLast()  // a class body: methods get theirs
                    } else if prevClosedParams || pending == .functionBody {
                        pending = .functionBody  // after a parameter list, or `=>` (`tokenStarts`)
                    }
                }
                push(block ? .blockBrace : .objectBrace)
                prev = block ? .statementStart : .punctuator
            case Ch.rbrace:
                i += 1
                let kind = pop(unless: nil)
                if kind == .templateSubstitution {
                    scanTemplate()
                } else {
                    prev = kind == .objectBrace ? .operand : .statementStart
                    endedStatement = kind == .blockBrace
                }
            case Ch.semicolon:
                i += 1
                prev = .statementStart
                newPending = 0
                endedStatement = true
            case Ch.colon:
                i += 1
                // In an object literal or inside parentheses `:` continues an expression;
                // otherwise it ends a label or a `case`.
                switch top {
                case .objectBrace, .paren, .controlParen, .loopParen, .bracket, .templateSubstitution: prev = .punctuator
                default: prev = .statementStart
                }
                newPending = 0
            case Ch.equals:
                if peek(1) == Ch.greater {  // `=>`: a block or an expression body follows
                    i += 2
                    prev = .statementStart
                    if checkPoints { pending = .arrowBody }
                } else {
                    i += 1
                    prev = .punctuator
                }
                newPending = 0
            case Ch.plus, Ch.minus:
                if peek(1) == c {
                    if c == Ch.minus && peek(2) == Ch.greater && onlySpaceBeforeOnLine() {
                        skipLineComment()  // `-->` at the start of a line is an HTML-like comment
                        continue
                    }
                    i += 2
                    prev = .operand  // most often postfix: `i++ / 2` divides
                } else {
                    i += 1
                    prev = .punctuator
                }
                newPending = 0
            case Ch.less:
                if peek(1) == Ch.bang && peek(2) == Ch.minus && peek(3) == Ch.minus {
                    skipLineComment()  // `<!--` is an HTML-like comment in scripts
                } else {
                    i += 1
                    prev = .punctuator
                    newPending = 0
                }
            case Ch.hash:
                i += 1  // a private name, `#field`; never rewritten (`__c` cannot reach it)
                scanIdentifierTail()
                if prev != .dot { newPending = 0 }  // `new this.#Kind.make()` keeps its constructor
                prev = .operand
            case Ch.dollar, Ch.underscore, Ch.backslash, Ch.upperA...Ch.upperZ, Ch.lowerA...Ch.lowerZ:
                identifier()
            case 0x80...0xFF:
                let (length, isLineBreak) = nonASCIISpace(at: i)
                if length > 0 {
                    i += length
                    if isLineBreak { newLine() }
                } else {
                    identifier()
                }
            default:
                i += 1
                prev = .punctuator
                newPending = 0
            }
        }
        if !insertions.isEmpty { copyInput(upTo: end) }
    }

    // MARK: - Tokens

    private mutating func identifier() {
        let start = i
        scanIdentifierTail()
        if checkPoints {
            if reserved == nil && isReservedName(start) { reserved = (line, lineStart, start) }
            if prev != .dot && prev != .superDot { keywordForCheckPoints(start) }
        }
        switch prev {
        case .dot:
            prev = .operand
            if newPending == 0 && nextSignificantByteIsParen(from: i) && !isWord(start, "__c") {
                insert(start: start, length: i - start)
            }
        case .superDot:
            prev = .operand
        case .newKeyword:
            // The constructor expression: `new new X()()`, `new this.C()`, `new function(){}`.
            if isWord(start, "new") { newPending += 1 } else { prev = .operand }
        default:
            newPending = 0
            let wasControl = prev == .controlKeyword
            prev = keywordClass(start, i - start)
            if prev == .newKeyword { newPending = 1 }
            if checkPoints && wasControl && isWord(start, "await") { prev = .controlKeyword }  // `for await (`
        }
    }

    // MARK: - Check points

    /// Whether `c` at `i` begins a token (not whitespace, a line break or a comment).
    private func startsToken(_ c: UInt8) -> Bool {
        switch c {
        case Ch.space, Ch.tab, Ch.verticalTab, Ch.formFeed, Ch.lf, Ch.cr: return false
        case Ch.slash: return peek(1) != Ch.slash && peek(1) != Ch.star
        case Ch.less: return !(peek(1) == Ch.bang && peek(2) == Ch.minus && peek(3) == Ch.minus)
        case Ch.minus: return !(peek(1) == Ch.minus && peek(2) == Ch.greater && onlySpaceBeforeOnLine())
        case 0x80...0xFF: return nonASCIISpace(at: i).length == 0
        default: return true
        }
    }

    /// At the first byte `c` of a token: inserts the check point waiting for it, and moves what
    /// the previous token said into `prev…`.
    private mutating func tokenStarts(_ c: UInt8) {
        (prevEndedStatement, prevClosedParams, prevLineBreak) = (endedStatement, closedParams, lineBreak)
        (endedStatement, closedParams, lineBreak) = (false, false, false)
        if classFresh {
            classFresh = false
            // `class` as a name (`{ class: 1 }`, `o = { class() {} }`), not a declaration.
            if c == Ch.colon || c == Ch.lparen || c == Ch.equals || c == Ch.comma || c == Ch.semicolon || c == Ch.rbrace {
                classDepths.removeLast()
            }
        } else if let depth = classDepths.last, depth == stack.count,
                  c == Ch.colon || c == Ch.semicolon || c == Ch.comma || c == Ch.rbrace {
            classDepths.removeLast()
        }
        switch pending {
        case .none:
            return
        case .loopBody:
            pending = .none
            insertCheckPoint(.statement, at: i, line: line, lineStart: lineStart)
        case .functionBody:
            if c == Ch.quote || c == Ch.apostrophe {
                (directiveStart, directiveLine, directiveLineStart) = (i, line, lineStart)
                pending = .directive
            } else {
                pending = .none
                insertCheckPoint(.functionBody, at: i, line: line, lineStart: lineStart)
            }
        case .directive:
            if c == Ch.semicolon {
                pending = .functionBody  // the token after `;` may be another directive
            } else if c == Ch.rbrace || (prevLineBreak && startsStatement(c)) {
                pending = .none
                insertCheckPoint(.functionBody, at: i, line: line, lineStart: lineStart)
            } else {
                pending = .none  // the string begins an expression: not a directive
                insertCheckPoint(.functionBody, at: directiveStart, line: directiveLine, lineStart: directiveLineStart)
            }
        case .arrowBody:
            // A block body gets the function's check point once its `{` is lexed.
            pending = c == Ch.lbrace ? .functionBody : .none
            if c != Ch.lbrace { insertCheckPoint(.arrowExpression, at: i, line: line, lineStart: lineStart) }
        }
    }

    /// Bytes that can't continue an expression after a line break: a statement begins there.
    private func startsStatement(_ c: UInt8) -> Bool {
        isASCIIIdentifierPart(c) || c == Ch.backslash || c >= 0x80 || c == Ch.quote || c == Ch.apostrophe
            || c == Ch.lbrace || c == Ch.bang || c == Ch.tilde
    }

    /// Keywords that start or end a check point's place: `for`, `while`, `do`, `class`, and the
    /// other control keywords, whose parenthesis is no loop head (`catch`, `switch` are control
    /// keywords here: their parenthesis is no parameter list either).
    private mutating func keywordForCheckPoints(_ start: Int) {
        switch i - start {
        case 2:
            if isWord(start, "do") {
                doDepths.append(stack.count)
                pending = .loopBody
            } else if isWord(start, "if") {
                loopKeyword = false
            }
        case 3:
            if isWord(start, "for") { loopKeyword = true }
        case 4:
            if isWord(start, "with") { loopKeyword = false }
        case 5:
            if isWord(start, "while") {
                // A do-while's tail follows the do's body, a complete statement: after `;`, a
                // block's `}`, or a line break (ASI) at the `do`'s depth. Anywhere else (after
                // `do`, `else`, `)`, a label) it is a loop of its own.
                if doDepths.last == stack.count && (prevEndedStatement || (prevLineBreak && prev == .operand)) {
                    doDepths.removeLast()
                    loopKeyword = false
                } else {
                    loopKeyword = true
                }
            } else if isWord(start, "class") {
                classDepths.append(stack.count)
                classFresh = true
            } else if isWord(start, "catch") {
                loopKeyword = false
            }
        case 6:
            if isWord(start, "switch") { loopKeyword = false }
        default:
            break
        }
    }

    /// Whether the identifier at `start` (ending at `i`) is one of `CheckPoint.reservedNames`,
    /// `\u` escapes decoded (`__pe\u0054ick` names the same binding).
    private func isReservedName(_ start: Int) -> Bool {
        let length = i - start
        guard length >= 8, src[start] == Ch.underscore || src[start] == Ch.backslash else { return false }
        var name: [UInt8] = []
        var j = start
        while j < i {
            let c = src[j]
            if c == Ch.backslash, j + 1 < i, src[j + 1] == Ch.lowerU {
                j += 2
                var value: UInt32 = 0
                if j < i && src[j] == Ch.lbrace {
                    j += 1
                    while j < i && src[j] != Ch.rbrace { value = value &* 16 &+ hexValue(src[j]); j += 1 }
                    j += 1
                } else {
                    var n = 0
                    while n < 4 && j < i { value = value &* 16 &+ hexValue(src[j]); j += 1; n += 1 }
                }
                guard value < 0x80 else { return false }
                name.append(UInt8(value))
            } else {
                name.append(c)
                j += 1
            }
            if name.count > 10 { return false }
        }
        return CheckPoint.reservedNames.contains(name)
    }

    private func hexValue(_ c: UInt8) -> UInt32 {
        if c &- Ch.zero < 10 { return UInt32(c &- Ch.zero) }
        return UInt32((c | 0x20) &- Ch.lowerA) &+ 10
    }

    private mutating func insertCheckPoint(_ point: CheckPoint, at position: Int, line: Int32, lineStart: Int) {
        if output.isEmpty { output.reserveCapacity(end + end / 4 + 64) }
        copyInput(upTo: position)
        let text = point.text
        insertions.append(Insertion(line: line, length: 0, lineStart: lineStart, start: position, outputStart: output.count,
                                    inserted: Int32(text.count)))
        output.append(contentsOf: text)
    }

    /// How a keyword (or plain identifier) affects the next token.
    private func keywordClass(_ start: Int, _ length: Int) -> Prev {
        let first = src[start]
        guard length >= 2, length <= 10, first >= Ch.lowerA, first <= Ch.lowerZ else { return .operand }
        switch length {
        case 2:
            if isWord(start, "in") || isWord(start, "of") { return .punctuator }  // `for (m of /x/g.exec(s))`
            if isWord(start, "do") { return .statementStart }
            if isWord(start, "if") { return .controlKeyword }
        case 3:
            if isWord(start, "new") { return .newKeyword }
            if isWord(start, "for") { return .controlKeyword }
            if isWord(start, "try") { return .statementStart }
        case 4:
            if isWord(start, "else") { return .statementStart }
            if isWord(start, "case") || isWord(start, "void") { return .punctuator }
            if isWord(start, "with") { return .controlKeyword }
        case 5:
            if isWord(start, "super") { return .superKeyword }
            if isWord(start, "while") { return .controlKeyword }
            if checkPoints && isWord(start, "catch") { return .controlKeyword }
            if isWord(start, "throw") || isWord(start, "yield") || isWord(start, "await") { return .punctuator }
        case 6:
            if isWord(start, "return") || isWord(start, "typeof") || isWord(start, "delete") { return .punctuator }
            if checkPoints && isWord(start, "switch") { return .controlKeyword }
        case 7:
            if isWord(start, "finally") { return .statementStart }
        case 10:
            if isWord(start, "instanceof") { return .punctuator }
        default:
            break
        }
        return .operand
    }

    /// Whether the identifier at `start`, which ends at `i`, is exactly `word`.
    private func isWord(_ start: Int, _ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard i - start == n else { return false }
        let w = word.utf8Start
        for k in 0..<n where src[start + k] != w[k] { return false }
        return true
    }

    /// Consumes identifier characters: ASCII letters, digits, `$`, `_`, `\u` escapes and
    /// any non-ASCII character that is not whitespace. Always consumes at least the
    /// current byte when it is one of those (the caller checked).
    private mutating func scanIdentifierTail() {
        while i < end {
            let c = src[i]
            if isASCIIIdentifierPart(c) {
                i += 1
            } else if c == Ch.backslash {
                i += 1
                if peek(0) == Ch.lowerU {
                    i += 1
                    if peek(0) == Ch.lbrace {  // `\u{1F600}`
                        i += 1
                        while i < end && isHexDigit(src[i]) { i += 1 }
                        if peek(0) == Ch.rbrace { i += 1 }
                    }
                }
            } else if c >= 0x80 {
                if nonASCIISpace(at: i).length > 0 { return }
                i += 1
            } else {
                return
            }
        }
    }

    /// Numbers: decimal with fraction and exponent, `.5`, hex/octal/binary, separators, BigInt.
    /// A dot right after a complete number is left for the member access (`1.5.toFixed`).
    private mutating func scanNumber() {
        if src[i] == Ch.zero, let n = peek(1).map({ $0 | 0x20 }), n == Ch.lowerX || n == Ch.lowerO || n == Ch.lowerB {
            i += 2
            while i < end && (isHexDigit(src[i]) || src[i] == Ch.underscore) { i += 1 }
        } else {
            while i < end && (isDigit(src[i]) || src[i] == Ch.underscore) { i += 1 }
            if peek(0) == Ch.dot {
                i += 1
                while i < end && (isDigit(src[i]) || src[i] == Ch.underscore) { i += 1 }
            }
            if let e = peek(0), e | 0x20 == Ch.lowerE {
                let sign = peek(1)
                if isDigit(sign) {
                    i += 1
                } else if (sign == Ch.plus || sign == Ch.minus) && isDigit(peek(2)) {
                    i += 2
                }
                while i < end && (isDigit(src[i]) || src[i] == Ch.underscore) { i += 1 }
            }
        }
        if peek(0) == Ch.lowerN { i += 1 }
    }

    /// A '…' or "…" literal. Stops before a raw line break (unterminated: JavaScriptCore
    /// will report it); an escaped line break is a continuation and counts as a line.
    private mutating func scanString(quote: UInt8) {
        i += 1
        while i < end {
            let c = src[i]
            if c == quote {
                i += 1
                return
            } else if c == Ch.backslash {
                i += 1
                skipEscapedByte()
            } else if c == Ch.lf || c == Ch.cr {
                return
            } else {
                i += 1  // a raw U+2028/U+2029 inside a string is not a line break for JSC
            }
        }
    }

    /// The byte after a backslash in a string or template: a line break counts as a line,
    /// anything else is skipped (a multi-byte character's tail bytes are harmless).
    private mutating func skipEscapedByte() {
        if i < end && !consumeLineBreak() { i += 1 }
    }

    /// Template text, entered after the opening backtick or after the `}` that closes a
    /// substitution. Returns at the closing backtick, or after `${` with the substitution
    /// pushed so the main loop lexes its code.
    private mutating func scanTemplate() {
        while i < end {
            let c = src[i]
            if c == Ch.backtick {
                i += 1
                prev = .operand
                return
            } else if c == Ch.backslash {
                i += 1
                skipEscapedByte()
            } else if c == Ch.dollar && peek(1) == Ch.lbrace {
                i += 2
                push(.templateSubstitution)
                prev = .punctuator
                return
            } else if !consumeLineBreak() {
                i += 1
            }
        }
        prev = .operand  // unterminated: the rest of the input stays as it is
    }

    /// A regex literal from its opening `/`: escapes, and `[...]` classes in which `/` does
    /// not end the literal. Stops before a line break if unterminated.
    private mutating func scanRegex() {
        i += 1
        var inClass = false
        while i < end {
            let c = src[i]
            if c == Ch.backslash {
                i += 1
                if i < end && src[i] != Ch.lf && src[i] != Ch.cr && !isLineSeparator(at: i) { i += 1 }
            } else if c == Ch.lf || c == Ch.cr || isLineSeparator(at: i) {
                return
            } else if c == Ch.lbracket {
                inClass = true
                i += 1
            } else if c == Ch.rbracket {
                inClass = false
                i += 1
            } else if c == Ch.slash && !inClass {
                i += 1
                scanIdentifierTail()  // flags
                return
            } else {
                i += 1
            }
        }
    }

    private mutating func skipLineComment() {
        while i < end {
            let c = src[i]
            if c == Ch.lf || c == Ch.cr || (c == 0xE2 && isLineSeparator(at: i)) { return }
            i += 1
        }
    }

    private mutating func skipBlockComment() {
        i += 2
        while i < end {
            let c = src[i]
            if c == Ch.star && peek(1) == Ch.slash {
                i += 2
                return
            }
            if !consumeLineBreak() { i += 1 }
        }
    }

    // MARK: - Lines and whitespace

    private mutating func newLine() {
        line &+= 1
        lineStart = i
        lineBreak = true
    }

    /// Consumes LF, CR, CRLF, U+2028 or U+2029 at `i` and counts the line.
    private mutating func consumeLineBreak() -> Bool {
        let c = src[i]
        if c == Ch.lf {
            i += 1
        } else if c == Ch.cr {
            i += 1
            if i < end && src[i] == Ch.lf { i += 1 }
        } else if c == 0xE2 && isLineSeparator(at: i) {
            i += 3
        } else {
            return false
        }
        newLine()
        return true
    }

    /// U+2028 LINE SEPARATOR or U+2029 PARAGRAPH SEPARATOR (E2 80 A8/A9).
    private func isLineSeparator(at j: Int) -> Bool {
        j + 2 < end && src[j] == 0xE2 && src[j + 1] == 0x80 && (src[j + 2] == 0xA8 || src[j + 2] == 0xA9)
    }

    /// Byte length of a non-ASCII whitespace or line-break character at `j` (0 if none).
    private func nonASCIISpace(at j: Int) -> (length: Int, isLineBreak: Bool) {
        let c = src[j]
        if c == 0xC2 {
            return j + 1 < end && src[j + 1] == 0xA0 ? (2, false) : (0, false)  // NBSP
        }
        guard c == 0xE1 || c == 0xE2 || c == 0xE3 || c == 0xEF, j + 2 < end else { return (0, false) }
        let b1 = src[j + 1], b2 = src[j + 2]
        switch c {
        case 0xE1: return b1 == 0x9A && b2 == 0x80 ? (3, false) : (0, false)  // U+1680
        case 0xE3: return b1 == 0x80 && b2 == 0x80 ? (3, false) : (0, false)  // U+3000
        case 0xEF: return b1 == 0xBB && b2 == 0xBF ? (3, false) : (0, false)  // BOM
        default:
            if b1 == 0x80 {
                if b2 == 0xA8 || b2 == 0xA9 { return (3, true) }  // U+2028, U+2029
                if (b2 >= 0x80 && b2 <= 0x8A) || b2 == 0xAF { return (3, false) }  // U+2000-200A, U+202F
            } else if b1 == 0x81 && b2 == 0x9F {
                return (3, false)  // U+205F
            }
            return (0, false)
        }
    }

    /// Whether only spaces and tabs separate `i` from the start of its line.
    private func onlySpaceBeforeOnLine() -> Bool {
        var j = i - 1
        while j >= lineStart {
            let c = src[j]
            if c != Ch.space && c != Ch.tab { return false }
            j -= 1
        }
        return true
    }

    /// Looks past whitespace and comments for the `(` of a call. Does not move `i`.
    private func nextSignificantByteIsParen(from start: Int) -> Bool {
        var j = start
        while j < end {
            let c = src[j]
            switch c {
            case Ch.lparen:
                return true
            case Ch.space, Ch.tab, Ch.verticalTab, Ch.formFeed, Ch.lf, Ch.cr:
                j += 1
            case Ch.slash:
                guard j + 1 < end else { return false }
                if src[j + 1] == Ch.slash {
                    j += 2
                    while j < end && src[j] != Ch.lf && src[j] != Ch.cr && !isLineSeparator(at: j) { j += 1 }
                } else if src[j + 1] == Ch.star {
                    j += 2
                    while j < end && !(src[j] == Ch.star && j + 1 < end && src[j + 1] == Ch.slash) { j += 1 }
                    j += 2
                } else {
                    return false
                }
            case 0x80...0xFF:
                let length = nonASCIISpace(at: j).length
                if length == 0 { return false }
                j += length
            default:
                return false
            }
        }
        return false
    }

    // MARK: - Output

    private mutating func insert(start: Int, length: Int) {
        if output.isEmpty { output.reserveCapacity(end + end / 8 + 64) }
        copyInput(upTo: start)
        let outputStart = output.count
        let name = UnsafeBufferPointer(start: src + start, count: length)
        output.append(contentsOf: ScriptLexer.callPrefix)
        output.append(contentsOf: name)
        output.append(contentsOf: ScriptLexer.callMiddle)
        output.append(contentsOf: name)
        output.append(Ch.quote)
        output.append(Ch.rparen)
        copied = start + length
        insertions.append(Insertion(line: line, length: Int32(truncatingIfNeeded: length), lineStart: lineStart, start: start,
                                    outputStart: outputStart))
    }

    private mutating func copyInput(upTo position: Int) {
        output.append(contentsOf: UnsafeBufferPointer(start: src + copied, count: position - copied))
        copied = position
    }

    /// `__c(__pe.`, then the name, `||"`, the name again and `")`: the site hands `__c` the name's
    /// record from a property load of its own, or the name while it has none (runtime.js says why).
    static let callPrefix: [UInt8] = Array("__c(__pe.".utf8)
    static let callMiddle: [UInt8] = Array("||\"".utf8)
    /// Bytes a rewrite adds besides the second copy of the name.
    static let insertedLength = callPrefix.count + callMiddle.count + 2

    // MARK: - Nesting

    private mutating func push(_ kind: Nest) {
        stack.append(Int(kind.rawValue) | newPending << 8)
        newPending = 0
    }

    /// Pops the innermost bracket and restores the level it interrupted. A `)` or `]`
    /// never closes a template substitution (only `}` does), which keeps template text
    /// in sync after a stray bracket.
    private mutating func pop(unless protected: Nest?) -> Nest? {
        guard let last = stack.last else {
            newPending = 0
            return nil
        }
        let kind = Nest(rawValue: UInt8(last & 0xFF))
        if let protected, kind == protected { return nil }
        stack.removeLast()
        newPending = last >> 8
        return kind
    }

    private var top: Nest? {
        stack.last.flatMap { Nest(rawValue: UInt8($0 & 0xFF)) }
    }

    // MARK: - Bytes

    @inline(__always) private func peek(_ offset: Int) -> UInt8? {
        i + offset < end ? src[i + offset] : nil
    }

    @inline(__always) private func isDigit(_ c: UInt8?) -> Bool {
        guard let c else { return false }
        return c &- Ch.zero < 10
    }

    @inline(__always) private func isHexDigit(_ c: UInt8) -> Bool {
        c &- Ch.zero < 10 || (c | 0x20) &- Ch.lowerA < 6
    }

    @inline(__always) private func isASCIIIdentifierPart(_ c: UInt8) -> Bool {
        (c | 0x20) &- Ch.lowerA < 26 || c &- Ch.zero < 10 || c == Ch.underscore || c == Ch.dollar
    }
}

/// ASCII bytes the lexer looks at.
private enum Ch {
    static let tab: UInt8 = 0x09, lf: UInt8 = 0x0A, verticalTab: UInt8 = 0x0B, formFeed: UInt8 = 0x0C, cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20, bang: UInt8 = 0x21, quote: UInt8 = 0x22, hash: UInt8 = 0x23, dollar: UInt8 = 0x24
    static let apostrophe: UInt8 = 0x27, lparen: UInt8 = 0x28, rparen: UInt8 = 0x29, star: UInt8 = 0x2A
    static let plus: UInt8 = 0x2B, minus: UInt8 = 0x2D, dot: UInt8 = 0x2E, slash: UInt8 = 0x2F
    static let zero: UInt8 = 0x30, nine: UInt8 = 0x39, colon: UInt8 = 0x3A, semicolon: UInt8 = 0x3B
    static let less: UInt8 = 0x3C, equals: UInt8 = 0x3D, greater: UInt8 = 0x3E, question: UInt8 = 0x3F
    static let upperA: UInt8 = 0x41, upperZ: UInt8 = 0x5A
    static let lbracket: UInt8 = 0x5B, backslash: UInt8 = 0x5C, rbracket: UInt8 = 0x5D, underscore: UInt8 = 0x5F
    static let backtick: UInt8 = 0x60, lowerA: UInt8 = 0x61, lowerB: UInt8 = 0x62, lowerE: UInt8 = 0x65
    static let lowerN: UInt8 = 0x6E, lowerO: UInt8 = 0x6F, lowerU: UInt8 = 0x75, lowerX: UInt8 = 0x78, lowerZ: UInt8 = 0x7A
    static let lbrace: UInt8 = 0x7B, rbrace: UInt8 = 0x7D, tilde: UInt8 = 0x7E, comma: UInt8 = 0x2C
}
