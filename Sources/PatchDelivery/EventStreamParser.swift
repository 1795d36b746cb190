import Foundation

/// The text/event-stream format, read as bytes arrive, in linear time and bounded memory.
///
/// Everything between two dispatched events counts toward the limits, whatever it is: every byte
/// (line ends included) toward `maxEventBytes`, every line (empty `data:` lines, comments, blank
/// lines that dispatch nothing) toward `maxLines`. A stream that never completes an event within
/// them — one endless line, endless empty `data:` lines, endless comments — is cut, rather than
/// growing memory or spinning for ever.
struct EventStreamParser {
    /// A stream that broke a limit; the stream should be closed.
    struct Overflow: Error, CustomStringConvertible {
        var description: String
    }

    let maxEventBytes: Int
    let maxLines: Int

    private var line: [UInt8] = []
    private var eventName = ""
    private var data: [UInt8] = []
    private var hasData = false
    private var bytesSinceEvent = 0
    private var linesSinceEvent = 0

    init(maxEventBytes: Int, maxLines: Int = 10_000) {
        self.maxEventBytes = maxEventBytes
        self.maxLines = maxLines
    }

    /// Reads `bytes`, calling `onEvent` for each completed event; throws once a limit is broken
    /// (events completed before that were delivered).
    mutating func feed(_ bytes: UnsafeRawBufferPointer, onEvent: (_ name: String, _ data: String) -> Void) throws {
        var start = 0
        while start < bytes.count {
            guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                try count(bytes: bytes.count - start, lines: 0)
                line.append(contentsOf: bytes[start...])
                return
            }
            try count(bytes: newline + 1 - start, lines: 1)
            line.append(contentsOf: bytes[start..<newline])
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            take(onEvent)
            line.removeAll(keepingCapacity: line.count < 64 << 10)
            start = newline + 1
        }
    }

    private mutating func count(bytes: Int, lines: Int) throws {
        bytesSinceEvent += bytes
        linesSinceEvent += lines
        if bytesSinceEvent > maxEventBytes {
            throw Overflow(description: "an event over \(maxEventBytes) bytes")
        }
        if linesSinceEvent > maxLines {
            throw Overflow(description: "over \(maxLines) lines without an event")
        }
    }

    /// One complete line (without its line end).
    private mutating func take(_ onEvent: (String, String) -> Void) {
        if line.isEmpty {
            defer { eventName = ""; data.removeAll(); hasData = false }
            guard hasData else { return }
            bytesSinceEvent = 0
            linesSinceEvent = 0
            onEvent(eventName.isEmpty ? "message" : eventName, String(decoding: data, as: UTF8.self))
            return
        }
        if line.first == UInt8(ascii: ":") { return }   // a comment
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let field = line[..<(colon ?? line.endIndex)]
        var value = colon.map { line[line.index(after: $0)...] } ?? []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch String(decoding: field, as: UTF8.self) {
        case "event":
            eventName = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { data.append(UInt8(ascii: "\n")) }
            data.append(contentsOf: value)
            hasData = true
        default:
            break
        }
    }
}
