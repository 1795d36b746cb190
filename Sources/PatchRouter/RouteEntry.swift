/// A route definition as a router stores it.
///
/// A class so routing (which works on a snapshot, outside the router's lock) can see that a route was
/// removed after the snapshot was taken: `isActive` is only read and written under the router's lock,
/// like the index fields.
final class RouteEntry {
    let definition: RouteDefinition
    /// `definition.usesPatternMatching`, read when the entry is made: that may be a subclass's code,
    /// which never runs under a router's lock.
    let usesPatternMatching: Bool
    var isActive = true
    /// Its place in the routing order among routes of its priority (`RouteIndex`).
    var sequence: UInt64 = 0
    /// The trie node that lists it, while it is indexed.
    weak var indexNode: RouteIndex.Node?

    init(definition: RouteDefinition) {
        self.definition = definition
        usesPatternMatching = definition.usesPatternMatching
    }
}
