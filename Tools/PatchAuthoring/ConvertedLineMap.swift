import Foundation

/// Where each line of a converted script came from in the Objective-C: what `patchctl dev` uses
/// to show a converted method's run-time error at its `File.m:line`.
///
/// `patchctl convert` writes it as the script's last line, one machine-readable comment
/// (`//# patchctl-convert-lines {…}`), not as a side file: it is written in the same atomic write
/// as the script (and with it when the script goes to standard output), so a save can't publish a
/// script with another version's map. Positions are JS lines of the script as written (the engine
/// reports errors there, after undoing its preprocessor). The comment records how many lines the
/// script had; once lines are added or removed above it the map is stale and is not used (an
/// edit within a line keeps it).
///
/// While converting, statements carry their position as a mark at the start of their first line
/// (`mark`), methods also a mark at the end of their last line; `extract` takes the marks out of
/// the finished script and makes the map, so the emitter only says where a statement begins.
public struct ConvertedLineMap: Equatable, Sendable {
    /// From `line` (1-based, in the script) on, the code came from `origin`; nil: from no method.
    public struct Entry: Equatable, Sendable {
        public var line: Int
        public var origin: SourcePosition?
    }

    /// Sorted by line, one entry per line at most.
    public private(set) var entries: [Entry] = []
    /// Lines of the script the map was made for (the comment is the line after them).
    public private(set) var scriptLines = 0

    public init() {}

    static let commentPrefix = "//# patchctl-convert-lines "
    /// The marks are control characters, which the converter never writes otherwise (JS strings
    /// escape them, C names can't hold them).
    private static let mark: Character = "\u{1}"
    private static let separator: Character = "\u{2}"
    private static let endMark = "\u{1}E\u{1}"

    // MARK: while converting

    /// `lines` (a statement's) with `position` marked at the start of the first.
    static func mark(_ lines: [String], at position: SourcePosition?) -> [String] {
        guard let position, let first = lines.first else { return lines }
        let file = String(position.file.map { $0 == mark || $0 == separator || $0.isNewline ? "?" : $0 })
        return ["\(mark)\(position.line)\(separator)\(file)\(mark)" + first] + lines.dropFirst()
    }

    /// A method's text: its first line marked with the method's position, and the lines after its
    /// last one marked as coming from no method.
    static func markMethod(_ text: String, at position: SourcePosition?) -> String {
        mark([text], at: position)[0] + endMark
    }

    /// The script without marks, and its map.
    static func extract(_ marked: String) -> (script: String, map: ConvertedLineMap) {
        var map = ConvertedLineMap()
        var lines: [String] = []
        for (index, physical) in marked.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(physical)
            var origin: SourcePosition??
            // Leading marks: the innermost (last) statement starting on this line names it.
            while line.first == mark, let close = line.dropFirst().firstIndex(of: mark) {
                let body = line[line.index(after: line.startIndex)..<close]
                if body != "E", let split = body.firstIndex(of: separator), let number = Int(body[..<split]) {
                    origin = .some(SourcePosition(file: String(body[body.index(after: split)...]), line: number, column: 0))
                }
                line = line[line.index(after: close)...]
            }
            let ends = line.contains(endMark)
            // Marks inside a line (statements joined into one) are taken out; the line's own stands.
            let text = line.contains(mark) ? removingMarks(line) : String(line)
            if let origin { map.add(line: index + 1, origin: origin) }
            if ends { map.add(line: index + 2, origin: nil) }
            lines.append(text)
        }
        let script = lines.joined(separator: "\n")
        map.scriptLines = script.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
        return (script, map)
    }

    private static func removingMarks(_ line: Substring) -> String {
        var out = "", inside = false
        for c in line {
            if c == mark { inside.toggle() } else if !inside { out.append(c) }
        }
        return out
    }

    private mutating func add(line: Int, origin: SourcePosition?) {
        if let last = entries.last, last.line == line { entries[entries.count - 1].origin = origin } else {
            entries.append(Entry(line: line, origin: origin))
        }
    }

    // MARK: in the script

    /// The comment `patchctl convert` ends the script with (a line of its own, after `scriptLines`).
    public var comment: String {
        var files: [String] = [], index: [String: Int] = [:]
        var rows: [[Int]] = []
        for entry in entries {
            guard let origin = entry.origin else { rows.append([entry.line, -1, 0]); continue }
            let file = index[origin.file] ?? { files.append(origin.file); index[origin.file] = files.count - 1; return files.count - 1 }()
            rows.append([entry.line, file, origin.line])
        }
        let body = Comment(lines: scriptLines, files: files, map: rows)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(body)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return Self.commentPrefix + json
    }

    private struct Comment: Codable {
        var lines: Int
        var files: [String]
        var map: [[Int]]
    }

    /// The map a script ends with; nil when it has none, when it is malformed, or when the
    /// script's lines were added or removed since (a stale map would name the wrong line).
    public init?(readingScript source: String) {
        var lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
        guard let last = lines.last, last.hasPrefix(Self.commentPrefix),
              let body = try? JSONDecoder().decode(Comment.self, from: Data(last.dropFirst(Self.commentPrefix.count).utf8)),
              body.lines == lines.count - 1 else { return nil }
        var previous = 0
        for row in body.map {
            // Every row well formed and in order, or no map: a wrong line is worse than none.
            guard row.count == 3, row[0] > previous, row[0] <= body.lines + 1, row[1] >= -1, row[1] < body.files.count else { return nil }
            previous = row[0]
            if row[1] == -1 {
                entries.append(Entry(line: row[0], origin: nil))
            } else {
                guard row[2] >= 1 else { return nil }
                entries.append(Entry(line: row[0], origin: SourcePosition(file: body.files[row[1]], line: row[2], column: 0)))
            }
        }
        scriptLines = body.lines
    }

    /// Where the code on `line` of the script came from: the last statement that starts on or
    /// before it; nil outside the converted methods.
    public func origin(ofLine line: Int) -> SourcePosition? {
        guard line >= 1, line <= scriptLines else { return nil }
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].line <= line { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : entries[low - 1].origin
    }
}
