import Foundation

/// An app's Objective-C interface as its headers declare it: classes with their superclasses,
/// adopted protocols, methods (with their types) and properties, and the protocols themselves.
/// `patchctl interface` writes it as JSON; `patchctl check` reads it.
public struct ObjCInterface: Codable, Equatable, Sendable {
    public struct Method: Codable, Equatable, Sendable {
        public var selector: String
        /// A `+` method.
        public var isClassMethod: Bool
        /// Types as declared (`NSInteger`, `SKProduct *`), return type first.
        public var returnType: String
        public var argumentTypes: [String]

        public init(selector: String, isClassMethod: Bool, returnType: String, argumentTypes: [String]) {
            self.selector = selector
            self.isClassMethod = isClassMethod
            self.returnType = returnType
            self.argumentTypes = argumentTypes
        }
    }

    public struct Property: Codable, Equatable, Sendable {
        public var name: String
        public var type: String
        public var readonly: Bool
        public var getter: String
        public var setter: String?
    }

    public struct Class: Codable, Equatable, Sendable {
        public var name: String
        public var superclass: String?
        public var protocols: [String]
        public var methods: [Method]
        public var properties: [Property]
        /// Declared in one of the headers given (not in a header they import, such as Foundation's).
        public var isAppClass: Bool
    }

    public struct ProtocolDecl: Codable, Equatable, Sendable {
        public var name: String
        public var protocols: [String]
        public var methods: [Method]
    }

    public var classes: [String: Class]
    public var protocols: [String: ProtocolDecl]

    public init(classes: [String: Class] = [:], protocols: [String: ProtocolDecl] = [:]) {
        self.classes = classes
        self.protocols = protocols
    }

    /// Reads the JSON `patchctl interface` writes.
    public init(json: Data) throws {
        self = try JSONDecoder().decode(ObjCInterface.self, from: json)
    }

    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try encoder.encode(self)
    }

    /// The method `selector` as `className` responds to it: its own, its protocols', then its
    /// superclasses'. Nil when none declares it.
    public func method(_ selector: String, isClassMethod: Bool, in className: String) -> Method? {
        var seen = Set<String>()
        var name: String? = className
        while let current = name, seen.insert(current).inserted, let cls = classes[current] {
            if let m = cls.methods.first(where: { $0.selector == selector && $0.isClassMethod == isClassMethod }) { return m }
            if let m = protocolMethod(selector, isClassMethod: isClassMethod, in: cls.protocols) { return m }
            name = cls.superclass
        }
        return nil
    }

    /// Every selector `className` responds to with the given kind of method.
    public func selectors(isClassMethod: Bool, in className: String) -> Set<String> {
        var out = Set<String>(), seen = Set<String>()
        var name: String? = className
        while let current = name, seen.insert(current).inserted, let cls = classes[current] {
            for m in cls.methods where m.isClassMethod == isClassMethod { out.insert(m.selector) }
            out.formUnion(protocolSelectors(isClassMethod: isClassMethod, in: cls.protocols))
            name = cls.superclass
        }
        return out
    }

    /// Every selector any class or protocol declares (instance and class methods).
    public var allSelectors: Set<String> {
        var out = Set<String>()
        for cls in classes.values { for m in cls.methods { out.insert(m.selector) } }
        for p in protocols.values { for m in p.methods { out.insert(m.selector) } }
        return out
    }

    private func protocolMethod(_ selector: String, isClassMethod: Bool, in names: [String]) -> Method? {
        var pending = names, seen = Set<String>()
        while let name = pending.popLast() {
            guard seen.insert(name).inserted, let p = protocols[name] else { continue }
            if let m = p.methods.first(where: { $0.selector == selector && $0.isClassMethod == isClassMethod }) { return m }
            pending += p.protocols
        }
        return nil
    }

    private func protocolSelectors(isClassMethod: Bool, in names: [String]) -> Set<String> {
        var out = Set<String>(), pending = names, seen = Set<String>()
        while let name = pending.popLast() {
            guard seen.insert(name).inserted, let p = protocols[name] else { continue }
            for m in p.methods where m.isClassMethod == isClassMethod { out.insert(m.selector) }
            pending += p.protocols
        }
        return out
    }
}
