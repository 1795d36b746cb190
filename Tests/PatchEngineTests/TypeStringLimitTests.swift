import Foundation
import XCTest
import PatchEngine
import PatchRuntime
import PatchFixtures

/// Script-supplied type strings (Objective-C encodings, defineStruct types, block and protocol
/// type lists) that are negative, huge or deeply nested are clear errors: no crash, no overflow,
/// no gigabyte allocation. The limits are in PETypeEncoding.h.
final class TypeStringLimitTests: PatchTestCase {
    /// The error PETypeParse gives for `encoding`, or nil (after a failure) if it parsed.
    private func typeError(_ encoding: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        var error: UnsafePointer<CChar>?
        if let type = PETypeParse(encoding, &error) {
            XCTFail("\(encoding.prefix(60)) parsed (size \(PETypeGetSize(type)))", file: file, line: line)
            return nil
        }
        return error.map { String(cString: $0) } ?? "no message"
    }

    private func signatureError(_ types: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        var error: UnsafePointer<CChar>?
        if PESignatureParse(types, &error) != nil {
            XCTFail("\(types.prefix(60)) parsed", file: file, line: line)
            return nil
        }
        return error.map { String(cString: $0) } ?? "no message"
    }

    func testTheLimitsAreExplicit() {
        XCTAssertEqual(PE_TYPE_MAX_NESTING, 32)
        XCTAssertEqual(PE_TYPE_MAX_SIZE, 65536)
        XCTAssertEqual(PE_TYPE_MAX_ELEMENTS, 65536)
        XCTAssertEqual(PE_TYPE_MAX_ENCODING_LENGTH, 16384)
    }

    func testArrayCounts() {
        XCTAssertEqual(typeError("[1000000000i]"), "type too large (more than 65536 bytes or 65536 elements)")
        XCTAssertEqual(typeError("{big=[100000c]}"), "type too large (more than 65536 bytes or 65536 elements)")
        XCTAssertEqual(typeError("[-1i]"), "negative array count")
        XCTAssertEqual(typeError("[-9223372036854775808i]"), "negative array count")
        XCTAssertEqual(typeError("[99999999999999999999999i]"), "type too large (more than 65536 bytes or 65536 elements)")
        XCTAssertEqual(typeError("[4000[4000{}]]"), "type too large (more than 65536 bytes or 65536 elements)",
                       "empty elements still count")
        XCTAssertEqual(typeError("{s=[30000d][30000d]}"), "type too large (more than 65536 bytes or 65536 elements)")
        // Within the limits: fine.
        var error: UnsafePointer<CChar>?
        XCTAssertEqual(PETypeParse("[16i]", &error).map { PETypeGetSize($0) }, 64)
        XCTAssertEqual(PETypeParse("{buf=[256c]i}", &error).map { PETypeGetSize($0) }, 260)
    }

    func testDeepNesting() {
        let depth = 3000      // deep, yet under the length limit
        let message = "type nested too deeply (more than 32 levels)"
        XCTAssertEqual(typeError(String(repeating: "{a=", count: depth) + "i" + String(repeating: "}", count: depth)), message)
        XCTAssertEqual(typeError(String(repeating: "^", count: 10_000) + "i"), message)
        XCTAssertEqual(typeError(String(repeating: "[1", count: depth) + "i" + String(repeating: "]", count: depth)), message)
        XCTAssertEqual(typeError(String(repeating: "(u=", count: depth) + "i" + String(repeating: ")", count: depth)), message)
        XCTAssertEqual(typeError(String(repeating: "^{a=", count: 40) + "i" + String(repeating: "}", count: 40)), message)
        // 31 levels of structs are fine.
        var error: UnsafePointer<CChar>?
        XCTAssertNotNil(PETypeParse(String(repeating: "{a=", count: 31) + "i" + String(repeating: "}", count: 31), &error))
    }

    func testLongInputAndBitFields() {
        XCTAssertEqual(signatureError(String(repeating: "i", count: 1_000_000)), "type encoding too long (more than 16384 characters)")
        XCTAssertEqual(typeError("{n=" + String(repeating: "\"f\"i", count: 10_000) + "}"), "type encoding too long (more than 16384 characters)")
        XCTAssertEqual(typeError("{flags=b1b3b28}"), "bit-field types are not supported")
        XCTAssertEqual(typeError("b-5"), "bit-field types are not supported")
        XCTAssertEqual(typeError("{unterminated=ii"), "unterminated struct or union encoding")
        _ = PETypeParse("@?<v@?<v@?", nil)     // an unterminated extended block signature: no crash
    }

    /// Random and mutated encodings, a bounded number of them: each is a type within the limits
    /// or an error, never a crash.
    func testFuzzedEncodings() {
        var random = SplitMix64(seed: 0x5EED_0008)
        let alphabet = Array("cCsSiIlLqQfdBv@#:*^?{}()[]=\"<>bjD0123456789-_aXrnNoORVA")
        let seeds = ["{_NSRect={_NSPoint=dd}{_NSSize=dd}}", "[4{p=ci}]", "^{node=^{node}i}", "(u=id[2c])",
                     "@\"NSString\"", "@?<v@?i>", "{s=\"a\"i\"b\"[3d]}", "v24@0:8i16i20"]
        var parsed = 0, refused = 0
        let started = Date()
        for round in 0..<3000 {
            var text: [Character]
            if round % 2 == 0 {
                text = (0..<Int(random.next() % 40)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            } else {
                text = Array(seeds[Int(random.next() % UInt64(seeds.count))])
                for _ in 0..<(1 + Int(random.next() % 6)) {
                    let position = text.isEmpty ? 0 : Int(random.next() % UInt64(text.count + 1))
                    let character = alphabet[Int(random.next() % UInt64(alphabet.count))]
                    switch random.next() % 4 {
                    case 0: text.insert(character, at: position)
                    case 1: if position < text.count { text.remove(at: position) }
                    case 2: if position < text.count { text[position] = character }
                    default: text.insert(contentsOf: String(repeating: "9", count: Int(random.next() % 25)), at: position)
                    }
                }
            }
            let encoding = String(text)
            var error: UnsafePointer<CChar>?
            if let type = PETypeParse(encoding, &error) {
                parsed += 1
                XCTAssertLessThanOrEqual(PETypeGetSize(type), Int(PE_TYPE_MAX_SIZE), encoding)
            } else {
                refused += 1
                XCTAssertNotNil(error, "no message for \(encoding)")
            }
            if let sig = PESignatureParse(encoding, &error) {
                XCTAssertLessThanOrEqual(PESignatureGetFrameSize(sig), 64 * (Int(PE_TYPE_MAX_SIZE) + 16), encoding)
            }
            if Date().timeIntervalSince(started) > 20 { XCTFail("fuzzing took too long at round \(round)"); break }
        }
        XCTAssertGreaterThan(parsed, 0)
        XCTAssertGreaterThan(refused, 0)
    }

    // MARK: through the script API

    func testDefineStructRefusesHugeAndNestedTypes() {
        let huge = applyExpectingError("defineStruct({name: 'PFHuge', types: '[1000000000i]', keys: ['a']})")
        XCTAssertTrue(huge?.message.contains("type too large") == true, "\(String(describing: huge))")
        let negative = applyExpectingError("defineStruct({name: 'PFNegative', types: '[-5i]', keys: ['a']})")
        XCTAssertTrue(negative?.message.contains("negative array count") == true, "\(String(describing: negative))")
        let nested = applyExpectingError("defineStruct({name: 'PFNested', types: '\(String(repeating: "{a=", count: 3000))i\(String(repeating: "}", count: 3000))', keys: ['a']})")
        XCTAssertTrue(nested?.message.contains("nested too deeply") == true, "\(String(describing: nested))")
        XCTAssertEqual(render(try? apply("1 + 2")), "3")
    }

    func testBlockAndProtocolTypeListsRefuseHugeInput() {
        let longList = Array(repeating: "int", count: 5000).joined(separator: ", ")
        let block = applyExpectingError("block('\(longList)', function() {})")
        XCTAssertTrue(block?.message.contains("type list too long") == true, "\(String(describing: block))")
        let longName = applyExpectingError("block('int, \(String(repeating: "N", count: 100_000)) *', function() {})")
        XCTAssertTrue(longName?.message.contains("type name too long") == true, "\(String(describing: longName))")
        let proto = applyExpectingError("defineProtocol('\(uniqueClassName("PFHugeProto"))', { m: { paramsType: '\(longList)', returnType: 'void' } })")
        XCTAssertNotNil(proto)
        XCTAssertEqual(render(try? apply("2 + 2")), "4")
    }
}

/// A small deterministic generator (SplitMix64), so a failing fuzz case can be replayed.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
