import Foundation
import XCTest
import PatchEngine
import PatchFixtures

/// Patches and inheritance (after JSPatch's inherit tests): a patched parent is
/// inherited, siblings and native overrides are untouched, order of patches does not matter.
/// Classes: PFAnimal > PFDog > PFPuppy, PFAnimal > PFCat, PFAnimal > PFBird.
final class InheritanceTests: PatchTestCase {
    func testPatchedChildLeavesParentAndSiblingAlone() throws {
        try apply("defineClass('PFDog', { sound: function() { return 'js-woof' } })")
        XCTAssertEqual(take(pf_new_send("PFDog", "sound")), "\"js-woof\"")
        XCTAssertEqual(take(pf_new_send("PFPuppy", "sound")), "\"js-woof\"", "a grandchild inherits the patch")
        XCTAssertEqual(take(pf_new_send("PFAnimal", "sound")), "\"...\"")
        XCTAssertEqual(take(pf_new_send("PFCat", "sound")), "\"meow\"")
        XCTAssertEqual(take(pf_new_send("PFDog", "name")), "\"animal\"", "other methods stay native")
    }

    func testPatchedParentIsInheritedUnlessOverridden() throws {
        try apply("defineClass('PFAnimal', { legs: function() { return 6 } })")
        XCTAssertEqual(pf_animal_legs("PFAnimal"), 6)
        XCTAssertEqual(pf_animal_legs("PFDog"), 6)
        XCTAssertEqual(pf_animal_legs("PFPuppy"), 6)
        XCTAssertEqual(pf_animal_legs("PFCat"), 6)
        XCTAssertEqual(pf_animal_legs("PFBird"), 2, "a native override wins over the parent's patch")
    }

    func testPatchingAnInheritedMethodOnTheChildOnly() throws {
        // -name is implemented by PFAnimal only; the patch belongs to PFDog.
        try apply("defineClass('PFDog', { name: function() { return 'js-dog' } })")
        XCTAssertEqual(take(pf_new_send("PFDog", "name")), "\"js-dog\"")
        XCTAssertEqual(take(pf_new_send("PFAnimal", "name")), "\"animal\"")
        XCTAssertEqual(take(pf_new_send("PFCat", "name")), "\"animal\"")
        XCTAssertEqual(take(pf_new_send("PFPuppy", "name")), "\"puppy\"")
        XCTAssertEqual(take(pf_new_send("PFDog", "describe")), "\"js-dog says woof\"")
    }

    func testMethodAddedToParentDispatchesToChildren() throws {
        try apply(jsToString + """
        defineClass('PFAnimal', { whoAmI: function() { return S(self.name()) + '/' + S(self.sound()) } })
        """)
        XCTAssertEqual(take(pf_new_send("PFPuppy", "whoAmI")), "\"puppy/woof\"")
        XCTAssertEqual(take(pf_new_send("PFCat", "whoAmI")), "\"animal/meow\"")
        XCTAssertEqual(take(pf_new_send("PFAnimal", "whoAmI")), "\"animal/...\"")
    }

    func testChildPatchedThenParentPatched() throws {
        try apply("defineClass('PFDog', { sound: function() { return 'js-woof' } })")
        try apply("defineClass('PFAnimal', { sound: function() { return 'js-animal' } })")
        XCTAssertEqual(take(pf_new_send("PFDog", "sound")), "\"js-woof\"")
        XCTAssertEqual(take(pf_new_send("PFAnimal", "sound")), "\"js-animal\"")
        XCTAssertEqual(take(pf_new_send("PFCat", "sound")), "\"meow\"")
    }

    func testParentPatchedThenChildPatched() throws {
        try apply("defineClass('PFAnimal', { sound: function() { return 'js-animal' } })")
        try apply("defineClass('PFDog', { sound: function() { return 'js-woof' } })")
        XCTAssertEqual(take(pf_new_send("PFDog", "sound")), "\"js-woof\"")
        XCTAssertEqual(take(pf_new_send("PFPuppy", "sound")), "\"js-woof\"")
        XCTAssertEqual(take(pf_new_send("PFAnimal", "sound")), "\"js-animal\"")
    }

    func testNativeSelfCallsSeePatchesOfTheRightClass() throws {
        try apply("defineClass('PFAnimal', { sound: function() { return 'js-sound' } })")
        XCTAssertEqual(take(pf_new_send("PFAnimal", "describe")), "\"animal says js-sound\"")
        XCTAssertEqual(take(pf_new_send("PFDog", "describe")), "\"animal says woof\"")
    }

    func testJSSubclassOfPatchedClass() throws {
        let name = uniqueClassName("PFJSHound")
        try apply(jsToString + """
        defineClass('PFDog', { sound: function() { return 'js-woof' } });
        defineClass('\(name) : PFDog', { name: function() { return 'hound' } })
        """)
        XCTAssertEqual(take(pf_new_send(name, "describe")), "\"hound says js-woof\"")
        XCTAssertEqual(pf_animal_legs(name), 4)
    }

    func testOriginalOfAnInheritedMethod() throws {
        // PFDog has no -name of its own: ORIGname is PFAnimal's implementation, and the
        // patch takes PFAnimal's type encoding.
        try apply("defineClass('PFDog', { name: function() { return 'dog:' + self.ORIGname().toJS() } })")
        XCTAssertEqual(take(pf_new_send("PFDog", "name")), "\"dog:animal\"")
        XCTAssertEqual(take(pf_new_send("PFAnimal", "name")), "\"animal\"")
    }

    func testInheritedIntMethodKeepsItsType() throws {
        try apply("defineClass('PFDog', { legs: function() { return self.ORIGlegs() + 1 } })")
        XCTAssertEqual(take(pf_method_types("PFDog", "legs", 0)), "i@:")
        XCTAssertEqual(pf_animal_legs("PFDog"), 5)
        XCTAssertEqual(pf_animal_legs("PFPuppy"), 5)
        XCTAssertEqual(pf_animal_legs("PFAnimal"), 4)
    }
}
