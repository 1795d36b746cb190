/// A failure crossing the bridge; becomes a JS exception inside JS.
struct BridgeError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
