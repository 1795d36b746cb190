/// A route definition as a router stores it.
///
/// A class so routing (which works on a snapshot, outside the router's lock) can see that a route was
/// removed after the snapshot was taken: `isActive` is only read and written under the router's lock.
final class RouteEntry {
    let definition: RouteDefinition
    var isActive = true

    init(definition: RouteDefinition) {
        self.definition = definition
    }
}
