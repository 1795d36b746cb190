import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// A patch enumerating a dictionary with a block (`enumerateKeysAndObjectsUsingBlock:`, as
/// convert writes it: `block('void, id, id, BOOL *', …)`), on an NSDictionary and on a subclass
/// with only NSDictionary's primitives (PFPlainDictionary, as libraries write them). The block's
/// `BOOL *stop` is a pointer: read as an object, it was boxed and the process crashed (SIGSEGV in
/// the block entry).
final class DictionaryEnumerationTests: PatchTestCase {
    private static let enumerating = """
        defineClass('PFEnumerationProbe', {
          describe: function(d) {
            var seen = [];
            d.enumerateKeysAndObjectsUsingBlock(block('void, id, id, BOOL *', function(k, v, stop) {
              seen.push(String(k.toJS()) + String(v.toJS()));
              if (d.objectForKey('stop')) assignScalarTypePointer(stop, 1, 'B');
            }));
            return seen.sort().join(',');
          }
        })
        """

    func testAPatchEnumeratesADictionaryWithABlock() throws {
        let errors = captureErrors()
        try apply("require('JPEngine').addExtensions(['JPMemory']);\n" + Self.enumerating)
        XCTAssertEqual(take(pf_enumeration_describe(0)), "a1,b2")
        XCTAssertEqual(errors.errors.map { "\($0)" }, [])
    }

    /// The block's `stop` written through its pointer ends the enumeration, as in compiled code.
    func testTheBlockStopsTheEnumerationThroughItsPointer() throws {
        let errors = captureErrors()
        try apply("require('JPEngine').addExtensions(['JPMemory']);\n" + Self.enumerating)
        XCTAssertEqual(take(pf_enumeration_describe(2))?.split(separator: ",").count, 1, "one entry of three")
        XCTAssertEqual(errors.errors.map { "\($0)" }, [])
    }

    /// On the subclass the patch gets what compiled code gets.
    func testASubclassWithOnlyThePrimitivesAnswersAsNatively() throws {
        XCTAssertEqual(take(pf_enumeration_native_keys_and_objects()), "a1,b2", "compiled code's answer")
        let errors = captureErrors()
        try apply("require('JPEngine').addExtensions(['JPMemory']);\n" + Self.enumerating)
        XCTAssertEqual(take(pf_enumeration_describe(1)), "a1,b2")
        XCTAssertEqual(errors.errors.map { "\($0)" }, [])
    }

    /// Type lists read `T *` as a pointer to T unless T is a class: what the block above gets.
    func testTypeListsReadPointersToNonClassesAsPointers() throws {
        let result = try apply("""
        require('JPEngine').addExtensions(['JPMemory']);
        var flag = malloc(1), error = malloc(8), out = [];
        assignScalarTypePointer(flag, 0, 'B');
        block('void, BOOL *, NSError **, NSString *', function(b, e, s) {
          assignScalarTypePointer(b, 1, 'B'); out.push(typeof s.toJS());
        })(flag, error, 'text');
        out.push(pvalBool(flag));
        free(flag); free(error);
        out.join()
        """)
        XCTAssertEqual(result as? String, "string,true")
    }
}
