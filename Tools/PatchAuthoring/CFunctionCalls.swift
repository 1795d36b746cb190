import Foundation

/// C function calls: struct constructors, math, logging, selectors and classes, Grand Central
/// Dispatch through the engine's helpers, block calls, and the app's own functions through
/// `defineCFunction` (which the app must allow).
enum CFunctionCalls {
    /// Struct constructors → the engine's flat struct objects, by field names.
    static let constructors: [String: [String]] = [
        "CGRectMake": ["x", "y", "width", "height"], "NSMakeRect": ["x", "y", "width", "height"],
        "CGPointMake": ["x", "y"], "NSMakePoint": ["x", "y"],
        "CGSizeMake": ["width", "height"], "NSMakeSize": ["width", "height"],
        "NSMakeRange": ["location", "length"],
        "UIEdgeInsetsMake": ["top", "left", "bottom", "right"], "NSEdgeInsetsMake": ["top", "left", "bottom", "right"],
        "UIOffsetMake": ["horizontal", "vertical"], "CGVectorMake": ["dx", "dy"],
    ]

    /// Constants Cocoa declares as globals.
    static let constants: [String: String] = [
        "CGRectZero": "{x: 0, y: 0, width: 0, height: 0}", "NSZeroRect": "{x: 0, y: 0, width: 0, height: 0}",
        "CGPointZero": "{x: 0, y: 0}", "NSZeroPoint": "{x: 0, y: 0}",
        "CGSizeZero": "{width: 0, height: 0}", "NSZeroSize": "{width: 0, height: 0}",
        "UIEdgeInsetsZero": "{top: 0, left: 0, bottom: 0, right: 0}",
        "NSNotFound": "9223372036854775807",
    ]

    /// C math → JS's Math (same IEEE results for these).
    static let math: [String: String] = [
        "fabs": "abs", "fabsf": "abs", "abs": "abs", "labs": "abs", "llabs": "abs",
        "floor": "floor", "floorf": "floor", "ceil": "ceil", "ceilf": "ceil", "round": "round", "roundf": "round",
        "sqrt": "sqrt", "sqrtf": "sqrt", "pow": "pow", "powf": "pow", "exp": "exp", "expf": "exp", "log": "log", "logf": "log",
        "log10": "log10", "log2": "log2", "sin": "sin", "sinf": "sin", "cos": "cos", "cosf": "cos", "tan": "tan", "tanf": "tan",
        "asin": "asin", "acos": "acos", "atan": "atan", "atan2": "atan2", "atan2f": "atan2", "fmin": "min", "fminf": "min",
        "fmax": "max", "fmaxf": "max", "trunc": "trunc", "truncf": "trunc", "hypot": "hypot", "cbrt": "cbrt",
    ]

    /// The engine's JPCoreGraphics extension: same names, computed in JS.
    static let coreGraphicsExtension: Set<String> = [
        "CGAffineTransformMakeTranslation", "CGAffineTransformMakeScale", "CGAffineTransformMakeRotation",
        "CGAffineTransformTranslate", "CGAffineTransformScale", "CGAffineTransformRotate", "CGRectApplyAffineTransform",
        "CGRectGetMinX", "CGRectGetMidX", "CGRectGetMaxX", "CGRectGetMinY", "CGRectGetMidY", "CGRectGetMaxY",
        "CGRectGetWidth", "CGRectGetHeight",
        "CGRectEqualToRect", "CGRectContainsPoint", "CGRectOffset", "CGRectInset", "CGRectIntegral", "CGRectIntersection",
        "CGRectIntersectsRect",
    ]

    /// Files whose functions are the platform's, not the app's.
    static func isSystemFile(_ path: String?) -> Bool {
        guard let path else { return true }
        return path.hasPrefix("/usr/") || path.hasPrefix("/opt/") || path.hasPrefix("/Library/") || path.hasPrefix("/System/")
            || path.contains(".sdk/") || path.contains("/Xcode")
    }
}

extension MethodConverter {
    mutating func call(_ node: ClangNode) -> String {
        guard let calleeNode = node.inner.first else { return unconverted("call without a callee", node) }
        let args = Array(node.inner.dropFirst())
        let callee = calleeNode.unwrapped
        if CTypes.isBlock(callee.type) || CTypes.isBlock(calleeNode.type) || CTypes.isBlock(callee.desugaredType)
            || CTypes.isBlock(calleeNode.desugaredType) {
            return "\(operand(calleeNode))(\(args.map { expr($0, boxed: true) }.joined(separator: ", ")))"
        }
        guard callee.kind == "DeclRefExpr", let ref = callee.referencedDecl, ref.kind == "FunctionDecl" else {
            return unconverted("call through a function pointer", node)
        }
        let name = ref.name
        if let fields = CFunctionCalls.constructors[name] {
            guard fields.count == args.count else { return unconverted("\(name) with \(args.count) arguments", node) }
            return "{" + zip(fields, args).map { "\($0): \(expr($1))" }.joined(separator: ", ") + "}"
        }
        if let m = CFunctionCalls.math[name] {
            return "Math.\(m)(\(args.map { expr($0) }.joined(separator: ", ")))"
        }
        if CFunctionCalls.coreGraphicsExtension.contains(name) {
            state.extensions.insert("JPCoreGraphics")
            if name == "CGRectGetWidth" || name == "CGRectGetHeight", let r = args.first {
                return "\(operand(r)).\(name == "CGRectGetWidth" ? "width" : "height")"
            }
            return "\(name)(\(args.map { expr($0) }.joined(separator: ", ")))"
        }
        switch name {
        case "_Block_copy", "Block_copy":
            // The engine copies blocks to the heap itself; JS keeps what it holds.
            return args.first.map { expr($0) } ?? "null"
        case "_Block_release", "Block_release":
            return "undefined"
        case "malloc", "free":
            // The engine's own: a block JS owns (refused past its end by memcpy and friends).
            return "\(name)(\(args.map { expr($0) }.joined(separator: ", ")))"
        case "NSLog":
            guard !args.isEmpty else { return unconverted("NSLog without a format", node) }
            requireClass("NSString")
            return "console.log(NSString.stringWithFormat(\(formatArguments(args).joined(separator: ", "))).toJS())"
        case "NSStringFromSelector", "NSSelectorFromString":
            return args.first.map { expr($0) } ?? "null"
        case "NSStringFromClass":
            return args.first.map { "\(operand($0)).description()" } ?? "null"
        case "NSClassFromString":
            guard let a = args.first else { return "null" }
            if a.unwrapped.kind == "ObjCStringLiteral", let v = a.unwrapped.inner.first?.value {
                return "require(\(JSNames.string(CStringLiteral.decode(v))))"
            }
            return "require(String(\(operand(a)).toJS()))"
        case "MIN", "MAX":
            return "Math.\(name == "MIN" ? "min" : "max")(\(args.map { expr($0) }.joined(separator: ", ")))"
        case "dispatch_async", "dispatch_sync", "dispatch_after", "dispatch_once", "_dispatch_once":
            return dispatch(name, args, node)
        case "dispatch_get_main_queue", "dispatch_get_global_queue", "dispatch_time":
            return unconverted("\(name) outside dispatch_async/dispatch_sync/dispatch_after (the engine offers queues only through them)", node)
        case "objc_getAssociatedObject", "objc_setAssociatedObject":
            return unconverted("\(name): associated objects (use JS properties in the patch: defineClass's property list)", node)
        default:
            break
        }
        if name.hasPrefix("__builtin") {
            return unconverted("compiler builtin \(name)\(name.hasPrefix("__builtin_va") ? ": variadic C arguments can't be read in a patch" : "")", node)
        }
        guard let decl = unit.functions[name] else { return unconverted("C function \(name) without a declaration", node) }
        if CFunctionCalls.isSystemFile(decl.position?.file) {
            return unconverted("C function \(name) has no binding in the engine", node)
        }
        if decl.storageClass == "static" || decl.isInline {
            return unconverted("C function \(name) is \(decl.storageClass == "static" ? "static" : "inline") in the app: there is no symbol for the patch to call", node)
        }
        return appFunction(name, decl, args, node)
    }

    /// The app's own exported function: `defineCFunction` once per script, then a plain call.
    mutating func appFunction(_ name: String, _ decl: ClangNode, _ args: [ClangNode], _ node: ClangNode) -> String {
        let params = decl.inner.filter { $0.kind == "ParmVarDecl" }
        if (decl.type ?? "").contains("...") {
            return unconverted("C function \(name) is variadic", node)
        }
        if !state.cFunctions.contains(name) {
            state.cFunctions.insert(name)
            let returns = Self.returnType(ofFunctionType: decl.type ?? "void ()")
            let types = ([CTypes.engineTypeName(returns, nil)] + params.map { CTypes.engineTypeName($0.type, $0.desugaredType) }).joined(separator: ", ")
            state.preamble.append("defineCFunction('\(name)', '\(types)');   // the app must list it in PatchEngine.allowedCFunctions")
            report("calls the app's C function \(name) through defineCFunction: the app must list it in PatchEngine.allowedCFunctions", at: node, severity: .warning)
        }
        return "\(name)(\(args.map { expr($0) }.joined(separator: ", ")))"
    }

    /// `NSString *(NSString *, NSInteger)` → `NSString *`.
    static func returnType(ofFunctionType type: String) -> String {
        var depth = 0
        for (i, c) in type.enumerated().reversed() {
            if c == ")" { depth += 1 } else if c == "(" {
                depth -= 1
                if depth == 0 { return String(type.prefix(i)).trimmingCharacters(in: .whitespaces) }
            }
        }
        return type
    }

    /// Grand Central Dispatch through the engine's helpers: the main queue, a global queue, after a delay.
    mutating func dispatch(_ name: String, _ args: [ClangNode], _ node: ClangNode) -> String {
        func queueKind(_ q: ClangNode) -> String? {
            let n = q.unwrapped
            guard n.kind == "CallExpr", let callee = n.inner.first?.unwrapped.referencedDecl?.name else {
                // GNUstep/libdispatch spell the main queue as the address of a global.
                if n.kind == "UnaryOperator", n.opcode == "&", n.inner.first?.unwrapped.referencedDecl?.name == "_dispatch_main_q" { return "main" }
                return nil
            }
            switch callee {
            case "dispatch_get_main_queue": return "main"
            case "dispatch_get_global_queue": return "global"
            default: return nil
            }
        }
        func function(_ b: ClangNode) -> String {
            b.unwrapped.kind == "BlockExpr" ? blockLiteral(b.unwrapped, typed: false) : expr(b)
        }
        switch name {
        case "dispatch_async", "dispatch_sync":
            guard args.count == 2, let kind = queueKind(args[0]) else {
                return unconverted("\(name) on a queue other than the main queue or a global queue", node)
            }
            if name == "dispatch_sync" {
                guard kind == "main" else { return "\(operand(args[1]))()" }   // synchronous on a global queue: the same as running it here
                return "dispatch_sync_main(\(function(args[1])))"
            }
            return kind == "main" ? "dispatch_async_main(\(function(args[1])))" : "dispatch_async_global_queue(\(function(args[1])))"
        case "dispatch_after":
            guard args.count == 3, queueKind(args[1]) == "main" else {
                return unconverted("dispatch_after on a queue other than the main queue", node)
            }
            let when = args[0].unwrapped
            guard when.kind == "CallExpr", when.inner.first?.unwrapped.referencedDecl?.name == "dispatch_time", when.inner.count == 3 else {
                return unconverted("dispatch_after's time isn't dispatch_time(DISPATCH_TIME_NOW, …)", node)
            }
            return "dispatch_after(\(operand(when.inner[2])) / 1000000000, \(function(args[2])))"
        case "dispatch_once", "_dispatch_once":
            // The token lives in the app; a patch runs its block once per script load.
            guard args.count == 2 else { return unconverted("dispatch_once of an unexpected shape", node) }
            temporaries += 1
            let flag = "\(method.className)_\(JSNames.methodName(method.selector))_once\(temporaries)"
            state.preamble.append("var \(flag) = false;   // dispatch_once in \(method)")
            return "(\(flag) ? undefined : (\(flag) = true, (\(function(args[1])))()))"
        default:
            return unconverted("\(name)", node)
        }
    }
}
