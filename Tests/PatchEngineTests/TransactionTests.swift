import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Every change a script makes is recorded under its name: a failing script leaves
/// nothing applied; revert(name) restores the original behaviour at run time.
final class TransactionTests: PatchTestCase {
    private var greet: String? { take(pf_greeter_greet("Ann")) }

    func testScriptThatThrowsHalfwayLeavesNothingApplied() throws {
        let newClass = uniqueClassName("PFJSTxNew")
        let name = uniqueScriptName()
        let error = applyExpectingError("""
        defineClass('PFGreeter', { greet: function(n) { return 'tx' } });
        defineClass('PFFactory', {}, { twice: function(x) { return 0 } });
        defineClass('PFGeometry', { echoRect: function(r) { return {x: 0, y: 0, width: 0, height: 0} } });
        defineClass('PFTypes', { echoInt: function(v) { return 0 } });
        defineClass('\(newClass) : NSObject', { hello: function() { return 'hi' } });
        throw new Error('halfway')
        """, name: name)
        XCTAssertTrue(error?.message.contains("halfway") == true, "\(String(describing: error))")
        XCTAssertEqual(error?.scriptName, name)
        XCTAssertEqual(greet, "\"Hello, Ann\"")
        XCTAssertEqual(pf_factory_twice("PFFactory", 21), 42)
        let rect = pf_geometry_echo_rect(PFRectC(x: 1, y: 2, width: 3, height: 4))
        XCTAssertEqual([rect.x, rect.y, rect.width, rect.height], [1, 2, 3, 4])
        XCTAssertEqual(pf_types_echo_int(5), 5)
        // The runtime cannot unregister a class; whatever is left must not run the script.
        if pf_class_exists(newClass) == 1 {
            XCTAssertNotEqual(take(pf_new_send(newClass, "hello")), "\"hi\"")
        }
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name))
    }

    func testFailedDefineClassRollsBackEarlierChanges() throws {
        let error = applyExpectingError("""
        defineClass('PFGreeter', { greet: function(n) { return 'tx' } });
        defineClass('\(uniqueClassName("PFJSTxOrphan")) : PFNoSuchSuperclass', { hello: function() { return 'hi' } })
        """)
        XCTAssertNotNil(error)
        XCTAssertTrue(error?.message.contains("PFNoSuchSuperclass") == true, "\(String(describing: error))")
        XCTAssertEqual(greet, "\"Hello, Ann\"")
    }

    func testFailingScriptKeepsEarlierScriptsApplied() throws {
        try apply("defineClass('PFGreeter', { greet: function(n) { return 'A' } })")
        _ = applyExpectingError("""
        defineClass('PFGreeter', { greet: function(n) { return 'B' } });
        throw new Error('fails after replacing A')
        """)
        XCTAssertEqual(greet, "\"A\"")
    }

    func testRevertRestoresOriginalBehaviourAtRunTime() throws {
        let name = uniqueScriptName()
        try apply("""
        defineClass('PFGreeter', { greet: function(n) { return 'patched' } });
        defineClass('PFFactory', {}, { twice: function(x) { return self.ORIGtwice(x) + 1 } });
        defineClass('PFGeometry', { echoRect: function(r) { return {x: 9, y: 9, width: 9, height: 9} } })
        """, name: name)
        XCTAssertEqual(greet, "\"patched\"")
        XCTAssertEqual(pf_factory_twice("PFFactory", 21), 43)
        XCTAssertTrue(PatchEngine.appliedPatchNames.contains(name))

        try PatchEngine.revert(name)
        XCTAssertEqual(greet, "\"Hello, Ann\"")
        XCTAssertEqual(pf_factory_twice("PFFactory", 21), 42)
        let rect = pf_geometry_echo_rect(PFRectC(x: 1, y: 2, width: 3, height: 4))
        XCTAssertEqual([rect.x, rect.y, rect.width, rect.height], [1, 2, 3, 4])
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name))
    }

    func testRevertStopsAddedMethods() throws {
        let name = uniqueScriptName()
        try apply("defineClass('PFGreeter', { temporaryAddition: function() { return 'temp' } })", name: name)
        let greeter = pf_new("PFGreeter")
        defer { pf_release(greeter) }
        XCTAssertEqual(take(pf_send(greeter, "temporaryAddition")), "\"temp\"")
        try PatchEngine.revert(name)
        XCTAssertNotEqual(take(pf_send(greeter, "temporaryAddition")), "\"temp\"")
    }

    func testRevertOfParentPatchKeepsChildPatch() throws {
        let parent = uniqueScriptName()
        try apply("defineClass('PFAnimal', { legs: function() { return 6 } })", name: parent)
        try apply("defineClass('PFDog', { sound: function() { return 'js-woof' } })")
        try PatchEngine.revert(parent)
        XCTAssertEqual(pf_animal_legs("PFAnimal"), 4)
        XCTAssertEqual(pf_animal_legs("PFDog"), 4)
        XCTAssertEqual(take(pf_new_send("PFDog", "sound")), "\"js-woof\"")
    }

    func testRevertOfParentPatchUnderChildSuperCall() throws {
        let parent = uniqueScriptName()
        try apply(jsToString + "defineClass('PFRevertMid', { method: function() { return S(self.super().method()) + '>jsmid' } })", name: parent)
        try apply(jsToString + "defineClass('PFRevertLeaf', { method: function() { return S(self.super().method()) + '>jsleaf' } })")
        XCTAssertEqual(take(pf_new_send("PFRevertLeaf", "method")), "\"base>jsmid>jsleaf\"")
        try PatchEngine.revert(parent)
        XCTAssertEqual(take(pf_new_send("PFRevertLeaf", "method")), "\"base>mid>jsleaf\"")
        XCTAssertEqual(take(pf_new_send("PFRevertMid", "method")), "\"base>mid\"")
    }

    func testReEvaluateAfterRevert() throws {
        let name = uniqueScriptName()
        let script = "defineClass('PFGreeter', { greet: function(n) { return 'again ' + n.toJS() } })"
        try apply(script, name: name)
        try PatchEngine.revert(name)
        XCTAssertEqual(greet, "\"Hello, Ann\"")
        try apply(script, name: name)
        XCTAssertEqual(greet, "\"again Ann\"")
        try PatchEngine.revert(name)
        XCTAssertEqual(greet, "\"Hello, Ann\"")
    }

    func testRevertingInReverseOrderRestoresEachStep() throws {
        let first = uniqueScriptName()
        let second = uniqueScriptName()
        try apply("defineClass('PFGreeter', { greet: function(n) { return 'A' } })", name: first)
        try apply("defineClass('PFGreeter', { greet: function(n) { return 'B' } })", name: second)
        XCTAssertEqual(PatchEngine.appliedPatchNames.filter { $0 == first || $0 == second }, [first, second])
        try PatchEngine.revert(second)
        XCTAssertEqual(greet, "\"A\"")
        try PatchEngine.revert(first)
        XCTAssertEqual(greet, "\"Hello, Ann\"")
    }

    func testRevertingAnOlderPatchKeepsTheNewerOne() throws {
        let first = uniqueScriptName()
        let second = uniqueScriptName()
        try apply("defineClass('PFGreeter', { greet: function(n) { return 'A' } })", name: first)
        try apply("defineClass('PFGreeter', { greet: function(n) { return 'B' } })", name: second)
        try PatchEngine.revert(first)
        XCTAssertEqual(greet, "\"B\"")
        try PatchEngine.revert(second)
        XCTAssertEqual(greet, "\"Hello, Ann\"", "nothing of the reverted older patch may come back")
    }

    func testRevertingAnUnknownNameIsAnError() {
        XCTAssertThrowsError(try PatchEngine.revert("never-applied-\(Self.nextNumber()).js")) { error in
            XCTAssertEqual((error as? PatchError)?.kind, .notApplied)
        }
    }

    func testSyntaxErrorAppliesNothing() {
        let name = uniqueScriptName()
        let error = applyExpectingError("defineClass('PFGreeter', { greet: function(n) { return 'x' } });\nvar = ;", name: name)
        XCTAssertEqual(error?.kind, .syntax)
        XCTAssertEqual(greet, "\"Hello, Ann\"")
        XCTAssertFalse(PatchEngine.appliedPatchNames.contains(name))
    }

    func testRevertingTheSecondScriptOnAScriptClassKeepsTheFirst() throws {
        let className = uniqueClassName("PFJSTwoScripts")
        try apply("defineClass('\(className)', { first: function() { return 'one' } })")
        let second = uniqueScriptName()
        try apply("defineClass('\(className)', { second: function() { return 'two' } })", name: second)
        XCTAssertEqual(take(pf_new_send(className, "second")), "\"two\"")
        try PatchEngine.revert(second)
        XCTAssertEqual(take(pf_new_send(className, "first")), "\"one\"")
        XCTAssertNotEqual(take(pf_new_send(className, "second")), "\"two\"")
    }
}
