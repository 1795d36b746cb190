import Foundation

/// Reads an app's Objective-C interface from its headers with the toolchain's clang
/// (`-Xclang -ast-dump=json -fsyntax-only`): a real compiler front end, so macros, categories,
/// protocols and properties come out as the compiler sees them.
public struct ClangInterfaceReader {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The clang to run: `$CLANG`, else `clang` on the PATH.
    public var clang: String
    /// `-I` directories (the app's), searched before the platform's.
    public var includePaths: [String]
    /// More flags for clang (`-D…`).
    public var extraFlags: [String]
    /// How long clang may run.
    public var timeout: TimeInterval

    public init(clang: String? = nil, includePaths: [String] = [], extraFlags: [String] = [], timeout: TimeInterval = 120) {
        self.clang = clang ?? ProcessInfo.processInfo.environment["CLANG"] ?? "clang"
        self.includePaths = includePaths
        self.extraFlags = extraFlags
        self.timeout = timeout
    }

    /// Platform flags for parsing Objective-C headers (docs/platform-notes.md, "Patch authoring").
    /// Linux: GNUstep's headers, as the app is compiled. The AST dump is made with
    /// `-fobjc-runtime=macosx-10.15`, not the build's `-fobjc-runtime=gcc`: clang 21 crashes
    /// dumping an AST for the GNU runtime, and the runtime choice changes no declaration.
    /// Apple platforms: the SDK's headers need no flags.
    static var platformFlags: [String] {
        #if os(Linux)
        return [
            "-fobjc-runtime=macosx-10.15", "-fobjc-exceptions",
            "-DGNUSTEP", "-DGNUSTEP_BASE_LIBRARY=1", "-DGNU_RUNTIME=1",
            "-I/usr/include/GNUstep",
            "-I/usr/lib/gcc/x86_64-linux-gnu/12/include", "-I/usr/lib/gcc/aarch64-linux-gnu/12/include",
        ]
        #else
        return []
        #endif
    }

    /// Code written for ARC and for manual reference counting both parse: ARC's `__weak` is
    /// accepted (`-fobjc-weak`) and MRC's retain/release stay legal (no `-fobjc-arc`).
    static let referenceCountingFlags = ["-fobjc-weak"]

    /// Blocks, as the app is compiled with them. Linux: GNUstep's headers then include
    /// `<objc/blocks_runtime.h>`, which GCC's runtime doesn't ship; a stand-in declaring the
    /// Blocks runtime's two functions (also as `<Block.h>`) is searched after the app's own directories.
    private func blocksFlags(in dir: URL) throws -> [String] {
        #if os(Linux)
        let shim = dir.appendingPathComponent("blocks-shim/objc")
        try FileManager.default.createDirectory(at: shim, withIntermediateDirectories: true)
        try """
            #ifndef PATCHCTL_BLOCKS_RUNTIME
            #define PATCHCTL_BLOCKS_RUNTIME
            void *_Block_copy(const void *);
            void _Block_release(const void *);
            extern void *_NSConcreteGlobalBlock[32];
            extern void *_NSConcreteStackBlock[32];
            #define Block_copy(b) ((__typeof__(b))_Block_copy((const void *)(b)))
            #define Block_release(b) _Block_release((const void *)(b))
            #endif

            """.write(to: shim.appendingPathComponent("blocks_runtime.h"), atomically: true, encoding: .utf8)
        // <Block.h> too, which apps include from the toolchain's Blocks runtime.
        try "#include <objc/blocks_runtime.h>\n".write(to: shim.deletingLastPathComponent().appendingPathComponent("Block.h"), atomically: true, encoding: .utf8)
        return ["-fblocks", "-idirafter", shim.deletingLastPathComponent().path]
        #else
        return []
        #endif
    }

    /// The interface the headers declare. Classes and protocols from headers they import
    /// (Foundation's) are included, marked `isAppClass: false`, so calls to them check too.
    public func read(headers: [String]) throws -> ObjCInterface {
        guard !headers.isEmpty else { throw Failure("no headers given") }
        let fm = FileManager.default
        let absolute = headers.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        for path in absolute where !fm.isReadableFile(atPath: path) { throw Failure("cannot read header \(path)") }
        let dir = fm.temporaryDirectory.appendingPathComponent("patchctl-interface-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        // One translation unit importing every header, as the app's own files do.
        let umbrella = dir.appendingPathComponent("interface.m")
        try absolute.map { "#import \"\($0)\"\n" }.joined().write(to: umbrella, atomically: true, encoding: .utf8)
        let data = try dumpAST(of: umbrella.path, in: dir, what: "the headers")
        return try Self.interface(fromASTJSON: data, appFiles: Set(absolute))
    }

    /// Clang's JSON AST of one Objective-C source file (`patchctl convert`), parsed with the same
    /// flags as the interface. Fails with clang's diagnostics when the file has errors.
    public func astJSON(ofSource path: String) throws -> Data {
        let fm = FileManager.default
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard fm.isReadableFile(atPath: absolute) else { throw Failure("cannot read \(path)") }
        let dir = fm.temporaryDirectory.appendingPathComponent("patchctl-convert-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        return try dumpAST(of: absolute, in: dir, what: path)
    }

    /// The one place clang runs: `-Xclang -ast-dump=json -fsyntax-only` over `source`.
    private func dumpAST(of source: String, in dir: URL, what: String) throws -> Data {
        let output = dir.appendingPathComponent("ast.json"), errors = dir.appendingPathComponent("clang.err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        var arguments = ["-x", "objective-c", "-Xclang", "-ast-dump=json", "-fsyntax-only"]
        arguments += includePaths.map { "-I" + $0 } + Self.platformFlags + (try blocksFlags(in: dir)) + Self.referenceCountingFlags + extraFlags + [source]
        let status = try run(arguments, stdout: output, stderr: errors)
        let diagnostics = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw Failure("clang could not parse \(what) (exit status \(status)):\n" + String(diagnostics.prefix(4000)))
        }
        return try Data(contentsOf: output)
    }

    private func run(_ arguments: [String], stdout: URL, stderr: URL) throws -> Int32 {
        let process = Process()
        if clang.contains("/") {
            process.executableURL = URL(fileURLWithPath: clang)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [clang] + arguments
        }
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        do { try process.run() } catch { throw Failure("cannot run \(clang): \(error)") }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            _ = done.wait(timeout: .now() + 5)
            throw Failure("clang did not finish within \(Int(timeout)) s")
        }
        return process.terminationStatus
    }

    /// The interface in a clang JSON AST. `appFiles`: the headers whose declarations are the app's.
    public static func interface(fromASTJSON data: Data, appFiles: Set<String>) throws -> ObjCInterface {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure("clang's AST dump is not a JSON object")
        }
        var walker = Walker(appFiles: appFiles)
        for node in root["inner"] as? [[String: Any]] ?? [] { walker.topLevel(node) }
        return walker.interface
    }

    /// Walks top-level declarations in order. Clang's JSON writes a location's `file` only when
    /// it differs from the previous location written, so the current file is carried along.
    private struct Walker {
        let appFiles: Set<String>
        var interface = ObjCInterface()
        var currentFile = ""

        init(appFiles: Set<String>) { self.appFiles = appFiles }

        mutating func note(_ loc: Any?) {
            guard let loc = loc as? [String: Any] else { return }
            if let spelling = loc["spellingLoc"] { note(spelling) }
            if let expansion = loc["expansionLoc"] { note(expansion) }
            if let file = loc["file"] as? String { currentFile = file }
        }

        /// Notes every location in a node, in the order clang writes them.
        mutating func noteAll(_ node: [String: Any]) {
            note(node["loc"])
            if let range = node["range"] as? [String: Any] { note(range["begin"]); note(range["end"]) }
            for child in node["inner"] as? [[String: Any]] ?? [] { noteAll(child) }
        }

        mutating func topLevel(_ node: [String: Any]) {
            note(node["loc"])
            let file = currentFile
            if let range = node["range"] as? [String: Any] { note(range["begin"]); note(range["end"]) }
            let inner = node["inner"] as? [[String: Any]] ?? []
            for child in inner { noteAll(child) }
            let name = node["name"] as? String ?? ""
            let isApp = appFiles.contains(URL(fileURLWithPath: file).standardizedFileURL.path)
            switch node["kind"] as? String {
            case "ObjCInterfaceDecl":
                var cls = interface.classes[name] ?? ObjCInterface.Class(
                    name: name, superclass: nil, protocols: [], methods: [], properties: [], isAppClass: isApp)
                if let sup = (node["super"] as? [String: Any])?["name"] as? String { cls.superclass = sup }
                cls.protocols += Self.names(node["protocols"])
                cls.isAppClass = cls.isAppClass || (isApp && !inner.isEmpty)
                add(inner, to: &cls)
                interface.classes[name] = cls
            case "ObjCCategoryDecl":
                guard let base = (node["interface"] as? [String: Any])?["name"] as? String else { return }
                var cls = interface.classes[base] ?? ObjCInterface.Class(
                    name: base, superclass: nil, protocols: [], methods: [], properties: [], isAppClass: false)
                cls.protocols += Self.names(node["protocols"])
                add(inner, to: &cls)
                interface.classes[base] = cls
            case "ObjCImplementationDecl", "ObjCCategoryImplDecl":
                // An .m read with `--implementation`: a method implemented there but declared nowhere
                // (a category's private helper) is still the class's at run time.
                let base = node["kind"] as? String == "ObjCImplementationDecl" ? name : (node["interface"] as? [String: Any])?["name"] as? String ?? ""
                guard !base.isEmpty else { return }
                var cls = interface.classes[base] ?? ObjCInterface.Class(
                    name: base, superclass: nil, protocols: [], methods: [], properties: [], isAppClass: isApp)
                for child in inner where child["kind"] as? String == "ObjCMethodDecl" && child["isImplicit"] as? Bool != true {
                    if let m = Self.method(child), !cls.methods.contains(where: { $0.selector == m.selector && $0.isClassMethod == m.isClassMethod }) {
                        cls.methods.append(m)
                    }
                }
                interface.classes[base] = cls
            case "ObjCProtocolDecl":
                var proto = interface.protocols[name] ?? ObjCInterface.ProtocolDecl(name: name, protocols: [], methods: [])
                proto.protocols += Self.names(node["protocols"])
                for child in inner where child["kind"] as? String == "ObjCMethodDecl" {
                    if let m = Self.method(child), !proto.methods.contains(m) { proto.methods.append(m) }
                }
                for child in inner where child["kind"] as? String == "ObjCPropertyDecl" {
                    for m in Self.accessors(child) where !proto.methods.contains(where: { $0.selector == m.selector && $0.isClassMethod == m.isClassMethod }) {
                        proto.methods.append(m)
                    }
                }
                interface.protocols[name] = proto
            default:
                break
            }
        }

        private func add(_ inner: [[String: Any]], to cls: inout ObjCInterface.Class) {
            func insert(_ m: ObjCInterface.Method) {
                if let i = cls.methods.firstIndex(where: { $0.selector == m.selector && $0.isClassMethod == m.isClassMethod }) {
                    cls.methods[i] = m
                } else {
                    cls.methods.append(m)
                }
            }
            for child in inner {
                switch child["kind"] as? String {
                case "ObjCMethodDecl":
                    if let m = Self.method(child) { insert(m) }
                case "ObjCPropertyDecl":
                    guard let p = Self.property(child) else { continue }
                    cls.properties.removeAll { $0.name == p.name }
                    cls.properties.append(p)
                    // Declared accessors win over the property's implied ones.
                    for m in Self.accessors(child)
                    where !cls.methods.contains(where: { $0.selector == m.selector && $0.isClassMethod == m.isClassMethod }) {
                        insert(m)
                    }
                default:
                    continue
                }
            }
        }

        static func names(_ value: Any?) -> [String] {
            (value as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        }

        static func type(_ value: Any?) -> String {
            (value as? [String: Any])?["qualType"] as? String ?? "id"
        }

        static func method(_ node: [String: Any]) -> ObjCInterface.Method? {
            guard let selector = node["name"] as? String else { return nil }
            let parameters = (node["inner"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "ParmVarDecl" }
            return ObjCInterface.Method(
                selector: selector, isClassMethod: !(node["instance"] as? Bool ?? true),
                returnType: type(node["returnType"]), argumentTypes: parameters.map { type($0["type"]) })
        }

        static func property(_ node: [String: Any]) -> ObjCInterface.Property? {
            guard let name = node["name"] as? String else { return nil }
            let readonly = node["readonly"] as? Bool ?? false
            let getter = (node["getter"] as? [String: Any])?["name"] as? String ?? name
            let setter = readonly ? nil : ((node["setter"] as? [String: Any])?["name"] as? String
                ?? "set" + name.prefix(1).uppercased() + name.dropFirst() + ":")
            return ObjCInterface.Property(name: name, type: type(node["type"]), readonly: readonly, getter: getter, setter: setter)
        }

        /// The getter and setter a property implies.
        static func accessors(_ node: [String: Any]) -> [ObjCInterface.Method] {
            guard let p = property(node) else { return [] }
            let isClass = node["class"] as? Bool ?? false
            var out = [ObjCInterface.Method(selector: p.getter, isClassMethod: isClass, returnType: p.type, argumentTypes: [])]
            if let setter = p.setter {
                out.append(ObjCInterface.Method(selector: setter, isClassMethod: isClass, returnType: "void", argumentTypes: [p.type]))
            }
            return out
        }
    }
}
