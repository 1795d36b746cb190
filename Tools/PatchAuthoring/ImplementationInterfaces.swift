import Foundation

/// What implementation files add to the headers' interface: class extensions (`@interface X ()`
/// inside a .m), private categories and classes declared only there. `convert` writes calls to
/// them, so `check` must know them.
extension ObjCInterface {
    /// `other`'s classes and protocols added to these: new methods and properties appended,
    /// classes and protocols this interface lacks taken as they are.
    public mutating func merge(_ other: ObjCInterface) {
        for (name, cls) in other.classes {
            guard var mine = classes[name] else { classes[name] = cls; continue }
            for m in cls.methods where !mine.methods.contains(where: { $0.selector == m.selector && $0.isClassMethod == m.isClassMethod }) {
                mine.methods.append(m)
            }
            for p in cls.properties where !mine.properties.contains(where: { $0.name == p.name }) { mine.properties.append(p) }
            for p in cls.protocols where !mine.protocols.contains(p) { mine.protocols.append(p) }
            if mine.superclass == nil { mine.superclass = cls.superclass }
            mine.isAppClass = mine.isAppClass || cls.isAppClass
            classes[name] = mine
        }
        for (name, p) in other.protocols where protocols[name] == nil { protocols[name] = p }
    }
}

extension ClangInterfaceReader {
    /// The declarations implementation files make (each parsed on its own, as it is compiled).
    public func read(implementations: [String]) throws -> ObjCInterface {
        var out = ObjCInterface()
        for path in implementations { out.merge(try read(headers: [path])) }
        return out
    }
}
