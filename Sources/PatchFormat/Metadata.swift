import Foundation

/// One signature in a metadata file's `signatures` list.
public struct Signature: Equatable, Sendable {
    public var keyid: String
    /// Hex; kept as written (an empty or malformed one simply never verifies).
    public var sig: String

    public init(keyid: String, sig: String) {
        self.keyid = keyid
        self.sig = sig
    }

    var json: JSONValue { .object(["keyid": .string(keyid), "sig": .string(sig)]) }
}

/// What every role's `signed` object carries (spec §4.2): type, specification version, version
/// and expiry.
public struct CommonFields: Equatable, Sendable {
    public var specVersion: String
    public var version: Int64
    public var expires: Date

    /// The major specification version this implementation reads.
    public static let supportedSpecMajor = "1"
    public static let specVersion = "1.0.31"

    public init(version: Int64 = 1, expires: Date, specVersion: String = CommonFields.specVersion) {
        self.specVersion = specVersion
        self.version = version
        self.expires = expires
    }

    /// Reads `_type` (which must be `type`), `spec_version`, `version` and `expires` from `fields`.
    init(_ fields: inout JSONFields, type: String) throws {
        let found = try fields.string("_type")
        guard found == type else { throw FormatError.malformed("\(fields.context): _type is \"\(found)\", expected \"\(type)\"") }
        specVersion = try fields.string("spec_version")
        let parts = specVersion.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else {
            throw FormatError.malformed("\(fields.context): spec_version \"\(specVersion)\" is not a version number")
        }
        guard parts[0] == Self.supportedSpecMajor else {
            throw FormatError.malformed("\(fields.context): spec_version \(specVersion) is not a 1.x version")
        }
        version = try fields.integer("version")
        guard version > 0 else { throw FormatError.malformed("\(fields.context): version must be positive, found \(version)") }
        expires = try MetadataDate.parse(try fields.string("expires"), context: fields.context)
    }

    func members(type: String) -> [String: JSONValue] {
        ["_type": .string(type), "spec_version": .string(specVersion), "version": .integer(version),
         "expires": .string(MetadataDate.format(expires))]
    }

    /// Whether the metadata has expired at `now` (it has at its expiry instant: spec §5.3.10).
    public func isExpired(at now: Date) -> Bool { now >= expires }
}

/// The `signed` part of one role's metadata.
public protocol RoleMetadata: Equatable, Sendable {
    /// The `_type` value: `root`, `timestamp`, `snapshot` or `targets`.
    static var type: String { get }
    var common: CommonFields { get set }
    init(json: JSONValue) throws
    var json: JSONValue { get }
}

/// A metadata file: the role's `signed` object and its signatures (spec §4.2).
///
/// Signatures cover the canonical JSON of `signed` exactly as it was read, unknown members
/// included: `signedBytes` is computed from the parsed document, never from the typed fields.
public struct Metadata<Role: RoleMetadata>: Sendable {
    public private(set) var signed: Role
    public private(set) var signatures: [Signature]
    /// The bytes signatures cover.
    public let signedBytes: Data
    /// The `signed` object as read (unknown members included), for writing the file back.
    private let signedValue: JSONValue
    /// Members of the envelope other than `signed` and `signatures`.
    public let unrecognized: [String: JSONValue]

    /// Parses a metadata file of role type `Role`. Refuses duplicate signature key ids (spec
    /// §4.2: each key id appears once), a `signed` object of another type, anything malformed.
    public init(data: Data, name: String? = nil) throws {
        let what = name ?? Role.type
        let (document, canonical) = try JSONParser.parseSignedDocument([UInt8](data), what: what)
        var fields = try JSONFields(document, context: what)
        let signedJSON = try fields.required("signed")
        let list = try fields.array("signatures")
        var seen = Set<String>()
        var signatures: [Signature] = []
        for entry in list {
            var sigFields = try JSONFields(entry, context: "\(what) signature")
            let keyid = try sigFields.string("keyid")
            let sig = try sigFields.string("sig")
            guard seen.insert(keyid).inserted else {
                throw FormatError.malformed("\(what): more than one signature by key \(keyid)")
            }
            signatures.append(Signature(keyid: keyid, sig: sig))
        }
        self.signed = try Role(json: signedJSON)
        self.signatures = signatures
        self.signedBytes = try canonical.map { Data($0) } ?? CanonicalJSON.encode(signedJSON)
        self.signedValue = signedJSON
        self.unrecognized = fields.remaining
    }

    /// New unsigned metadata for `signed` (to sign with `sign(with:)`).
    public init(signed: Role) throws {
        self.signed = signed
        self.signatures = []
        self.signedValue = signed.json
        self.signedBytes = try CanonicalJSON.encode(signedValue)
        self.unrecognized = [:]
    }

    /// Adds (or replaces) the signature of `key` over `signedBytes`.
    public mutating func sign(with key: SigningKey) throws {
        let signature = try key.sign(signedBytes)
        signatures.removeAll { $0.keyid == key.keyID }
        signatures.append(Signature(keyid: key.keyID, sig: signature))
    }

    /// Adds signatures made elsewhere over the same bytes (signatures gathered from several key
    /// holders); a signature by a key id already present replaces it.
    public mutating func merge(signatures more: [Signature]) {
        for signature in more {
            signatures.removeAll { $0.keyid == signature.keyid }
            signatures.append(signature)
        }
    }

    /// The file's bytes: the whole envelope in canonical member order, control characters escaped
    /// (`CanonicalJSON.encodeFile`).
    public func serialized() throws -> Data {
        let envelope = JSONValue.object(unrecognized.merging([
            "signed": signedValue, "signatures": .array(signatures.map(\.json)),
        ]))
        return try CanonicalJSON.encodeFile(envelope)
    }
}

/// The `expires` format: `YYYY-MM-DDTHH:MM:SSZ`, UTC, nothing else (as python-tuf reads it).
public enum MetadataDate {
    public static func parse(_ text: String, context: String) throws -> Date {
        let c = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Int? {
            var v = 0
            for i in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c[i]) else { return nil }
                v = v * 10 + Int(c[i] - UInt8(ascii: "0"))
            }
            return v
        }
        guard c.count == 20, c[4] == UInt8(ascii: "-"), c[7] == UInt8(ascii: "-"), c[10] == UInt8(ascii: "T"),
              c[13] == UInt8(ascii: ":"), c[16] == UInt8(ascii: ":"), c[19] == UInt8(ascii: "Z"),
              let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10),
              let hour = digits(11..<13), let minute = digits(14..<16), let second = digits(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { throw FormatError.malformed("\(context): expires \"\(text)\" is not YYYY-MM-DDTHH:MM:SSZ") }
        var components = DateComponents()
        components.year = year; components.month = month; components.day = day
        components.hour = hour; components.minute = minute; components.second = second
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else {
            throw FormatError.malformed("\(context): expires \"\(text)\" is not a calendar date")
        }
        return date
    }

    public static func format(_ date: Date) -> String {
        let d = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func pad(_ v: Int?, _ n: Int) -> String {
            let s = String(v ?? 0)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(d.year, 4))-\(pad(d.month, 2))-\(pad(d.day, 2))T\(pad(d.hour, 2)):\(pad(d.minute, 2)):\(pad(d.second, 2))Z"
    }

    private static let calendar: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()
}
