/// An object that handles matched routes itself, held weakly by `RouteHandler.forWeakTarget(_:)`.
public protocol RouteResponder: AnyObject {
    /// Handles a matched route; returns false to let the next matching route try.
    func handleRoute(with parameters: [String: Any]) -> Bool
}
