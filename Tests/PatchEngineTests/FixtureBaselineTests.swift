import Foundation
import XCTest
import PatchFixtures

/// The fixtures' unpatched behaviour, called natively. These run without the engine and
/// pin down the "original behaviour" the engine tests compare against.
final class FixtureBaselineTests: XCTestCase {
    func testTypeEchoesReturnTheirArgument() {
        XCTAssertEqual(pf_types_echo_char(-128), -128)
        XCTAssertEqual(pf_types_echo_uchar(255), 255)
        XCTAssertEqual(pf_types_echo_short(-32768), -32768)
        XCTAssertEqual(pf_types_echo_ushort(65535), 65535)
        XCTAssertEqual(pf_types_echo_int(Int32.min), Int32.min)
        XCTAssertEqual(pf_types_echo_uint(UInt32.max), UInt32.max)
        XCTAssertEqual(pf_types_echo_long(-123_456_789_012), -123_456_789_012)
        XCTAssertEqual(pf_types_echo_ulong(123_456_789_012), 123_456_789_012)
        XCTAssertEqual(pf_types_echo_longlong(-(1 << 53)), -(1 << 53))
        XCTAssertEqual(pf_types_echo_ulonglong(1 << 53), 1 << 53)
        XCTAssertEqual(pf_types_echo_float(1.5), 1.5)
        XCTAssertEqual(pf_types_echo_double(0.1), 0.1)
        XCTAssertEqual(pf_types_echo_bool(true), true)
        XCTAssertEqual(take(pf_types_echo_class("PFTypes")), "PFTypes")
        XCTAssertEqual(take(pf_types_echo_selector("echoInt:")), "echoInt:")
        XCTAssertEqual(take(pf_types_echo_cstring("JSPatch")), "JSPatch")
        var marker = 7
        withUnsafeMutablePointer(to: &marker) { pointer in
            XCTAssertEqual(pf_types_echo_pointer(pointer), UnsafeMutableRawPointer(pointer))
        }
        XCTAssertEqual(pf_types_record_void(9), 9)
        let object = pf_make_sample("object")
        let back = pf_types_echo_object(object)
        XCTAssertEqual(back, object)
        pf_release(back)
        pf_release(object)
    }

    func testLongEncodingsAreTheExplicitOnes() {
        XCTAssertEqual(take(pf_method_types("PFTypes", "echoLong:", 0)), "l@:l")
        XCTAssertEqual(take(pf_method_types("PFTypes", "echoULong:", 0)), "L@:L")
        XCTAssertEqual(take(pf_method_types("PFTypes", "echoBool:", 0)), "B@:B")
        XCTAssertEqual(take(pf_method_types("PFTypes", "echoBOOL:", 0)), "C@:C")
    }

    func testManyArgumentsNatively() {
        let result = pf_types_many_args(1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5)
        XCTAssertEqual(result, pf_types_many_args_expected(1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5))
        XCTAssertEqual(result, 204 + 2625)
    }

    func testValueBoxUnpatched() {
        XCTAssertEqual(pf_values_identity("dict"), -1, "-identityOf: returns nil until patched")
        XCTAssertEqual(take(pf_values_identity_of_nil()), "nil")
        XCTAssertEqual(take(pf_values_js_dictionary()), "not-a-dictionary nil")
        XCTAssertEqual(take(pf_values_wrap("L")), "L:[\"x\", 1]")
        let box = pf_new("PFValueBox")
        defer { pf_release(box) }
        XCTAssertEqual(take(pf_send_str(box, "makeObjectOfKind:", "dict")), "{num: 42, str: \"stringFromOC\"}")
        XCTAssertEqual(take(pf_send_str(box, "makeObjectOfKind:", "nested")), "{list: [1, \"two\", {inner: \"deep\"}], name: \"top\"}")
        XCTAssertEqual(take(pf_send_str(box, "makeObjectOfKind:", "null")), "null")
        XCTAssertEqual(take(pf_send(box, "returnsNil")), "nil")
    }

    func testStructEchoesNatively() {
        let rect = pf_geometry_echo_rect(PFRectC(x: 1, y: 2, width: 3, height: 4))
        XCTAssertEqual([rect.x, rect.y, rect.width, rect.height], [1, 2, 3, 4])
        let point = pf_geometry_echo_point(PFPointC(x: 5, y: 6))
        XCTAssertEqual([point.x, point.y], [5, 6])
        let size = pf_geometry_echo_size(PFSizeC(width: 7, height: 8))
        XCTAssertEqual([size.width, size.height], [7, 8])
        let range = pf_geometry_echo_range(PFRangeC(location: 9, length: 10))
        XCTAssertEqual([range.location, range.length], [9, 10])
        let padded = pf_geometry_echo_padded(PFPaddedC(c: 7, d: 2.5, s: -3))
        XCTAssertEqual(padded.c, 7)
        XCTAssertEqual(padded.d, 2.5)
        XCTAssertEqual(padded.s, -3)
        let pair = pf_geometry_echo_pair(PFPairC(i: 11, f: 0.25))
        XCTAssertEqual(pair.i, 11)
        XCTAssertEqual(pair.f, 0.25)
        let moved = pf_geometry_offset_rect(PFRectC(x: 1, y: 1, width: 2, height: 2), PFPointC(x: 10, y: 20))
        XCTAssertEqual([moved.x, moved.y, moved.width, moved.height], [11, 21, 2, 2])
        XCTAssertEqual(pf_geometry_area(PFRectC(x: 0, y: 0, width: 3, height: 4), 0.5), 6)
        XCTAssertEqual(take(pf_geometry_describe_padded(PFPaddedC(c: 1, d: 0.5, s: 2))), "c=1 d=0.5 s=2")
        XCTAssertEqual(pf_geometry_padded_size(), 24)
        XCTAssertEqual(take(pf_method_types("PFGeometry", "echoPadded:", 0)), "{PFPadded=cds}@:{PFPadded=cds}")
        XCTAssertEqual(take(pf_method_types("PFGeometry", "echoRange:", 0)), "{_NSRange=QQ}@:{_NSRange=QQ}")
    }

    func testBlocksNatively() {
        XCTAssertEqual(take(pf_blocks_transform("abc")), "\"abc\"", "-transform:with: ignores the block until patched")
        XCTAssertEqual(pf_blocks_apply_provided(4), 5)
        var missing: Int32 = 0
        _ = pf_blocks_call_kept(1, &missing)
        XCTAssertEqual(missing, 1)
        let host = pf_new("PFBlockHost")
        defer { pf_release(host) }
        XCTAssertEqual(take(pf_method_types("PFBlockHost", "callStringIntBlock:", 0)), "@@:@?")
    }

    func testGreeterNatively() {
        XCTAssertEqual(take(pf_greeter_greet("Ann")), "\"Hello, Ann\"")
        XCTAssertEqual(take(pf_greeter_greet_twice("Bo")), "\"Hello, Bo & Hello, Bo\"")
        XCTAssertEqual(take(pf_greeter_describe_value(2.5, "x")), "\"x=2.5\"")
        XCTAssertEqual(take(pf_greeter_mood_after_setting("calm")), "\"calm\"")
        XCTAssertEqual(pf_greeter_count("four"), 4)
        XCTAssertEqual(take(pf_greeter_format("s", 42)), "\"s/NSObject/42\"")
        XCTAssertEqual(take(pf_greeter_view_or_nil(0)), "nil")
    }

    func testFactoryNatively() {
        XCTAssertEqual(pf_factory_twice("PFFactory", 21), 42)
        XCTAssertEqual(pf_factory_twice("PFFactorySub", 4), 8)
        XCTAssertEqual(pf_factory_half(5), 2.5)
        XCTAssertEqual(take(pf_factory_class_kind()), "\"class-kind\"")
        XCTAssertEqual(take(pf_factory_instance_kind()), "\"instance-kind\"")
        XCTAssertEqual(take(pf_factory_tagged()), "nil tag=orig-called")
        XCTAssertEqual(take(pf_factory_make_named("n")), "\"n\"")
    }

    func testHierarchyNatively() {
        XCTAssertEqual(take(pf_new_send("PFAnimal", "describe")), "\"animal says ...\"")
        XCTAssertEqual(take(pf_new_send("PFDog", "describe")), "\"animal says woof\"")
        XCTAssertEqual(take(pf_new_send("PFPuppy", "describe")), "\"puppy says woof\"")
        XCTAssertEqual(take(pf_new_send("PFCat", "sound")), "\"meow\"")
        XCTAssertEqual(pf_animal_legs("PFDog"), 4)
        XCTAssertEqual(pf_animal_legs("PFBird"), 2)
        XCTAssertEqual(take(pf_superclass_name("PFPuppy")), "PFDog")
    }

    func testSuperChainsNatively() {
        XCTAssertEqual(take(pf_new_send("PFSuperB1", "method")), "\"B1\"")
        XCTAssertEqual(take(pf_new_send("PFSuperC2", "method")), "\"C12\"")
        for family in ["Chain", "Loop", "Late", "Deep", "Thread", "Revert"] {
            XCTAssertEqual(take(pf_new_send("PF\(family)Leaf", "method")), "\"base>mid>leaf\"")
        }
    }

    func testOwnForwardingNatively() {
        let forwarder = pf_new("PFForwarder")
        defer { pf_release(forwarder) }
        XCTAssertEqual(take(pf_send(forwarder, "dynHello")), "\"forwarded:dynHello\"")
        XCTAssertEqual(take(pf_send(forwarder, "forwardLog")), "\"dynHello\"")
        XCTAssertEqual(take(pf_send(forwarder, "greet")), "\"hello\"")
        XCTAssertEqual(pf_responds(forwarder, "dynHello"), 0)
        let child = pf_new("PFForwardChild")
        defer { pf_release(child) }
        XCTAssertEqual(take(pf_send(child, "dynX")), "\"parent-original:dynX\"")
        pf_forward_swizzle_parent(1)
        XCTAssertEqual(take(pf_send(child, "dynX")), "\"parent-swizzled:dynX\"")
        pf_forward_swizzle_parent(0)
        XCTAssertEqual(take(pf_send(child, "dynX")), "\"parent-original:dynX\"")
    }

    func testUnknownSelectorRaisesAtTheBoundary() {
        let greeter = pf_new("PFGreeter")
        defer { pf_release(greeter) }
        let result = take(pf_send(greeter, "noSuchSelector"))
        XCTAssertTrue(result?.hasPrefix("!") == true, "got \(String(describing: result))")
    }

    func testPropertiesNatively() {
        let holder = pf_new("PFHolder")
        defer { pf_release(holder) }
        pf_holder_set(holder, "T", 3, 1, 2, 3, 4)
        XCTAssertEqual(take(pf_send(holder, "summary")), "\"title=T count=3 frame=1,2,3,4 child=nil\"")
    }

    func testProtocolsNatively() {
        XCTAssertEqual(pf_protocol_exists("PFShapeSource"), 1)
        XCTAssertEqual(pf_protocol_exists("PFNamed"), 1)
        XCTAssertEqual(pf_conforms("PFShapeReference", "PFShapeSource"), 1)
        var raised: Int32 = 0
        let bounds = pf_shape_bounds("PFShapeReference", 2, &raised)
        XCTAssertEqual([bounds.x, bounds.y, bounds.width, bounds.height], [0, 0, 20, 10])
        XCTAssertEqual(take(pf_shape_action("PFShapeReference")), "redraw:")
        var code: Int32 = 0
        XCTAssertEqual(pf_shape_run("PFShapeReference", &code, &raised), 1)
        XCTAssertEqual(code, 7)
        let range = pf_shape_range("PFShapeReference", "abcd", &raised)
        XCTAssertEqual([range.location, range.length], [1, 4])
        XCTAssertEqual(pf_shape_limit("PFShapeReference", &raised), 3)
        XCTAssertEqual(pf_shape_weight("PFShapeReference", 1.5, &raised), 3)
        XCTAssertEqual(take(pf_shape_display_name("PFShapeReference")), "\"reference\"")
        XCTAssertEqual(raised, 0)
    }

    func testProtocolsDeclareTheTypesOfTheirMethods() {
        // What the engine reads for new methods of a class adopting these protocols.
        for selector in ["boundsForScale:", "preferredAction", "runWithCompletion:", "rangeForName:"] {
            XCTAssertEqual(take(pf_protocol_method_types("PFShapeSource", selector, 1)),
                           take(pf_method_types("PFShapeReference", selector, 0)), selector)
        }
        XCTAssertEqual(take(pf_protocol_method_types("PFShapeSource", "instanceLimit", 0)),
                       take(pf_method_types("PFShapeReference", "instanceLimit", 1)))
        XCTAssertEqual(take(pf_protocol_method_types("PFNamed", "displayName", 1)), "@@:")
        XCTAssertEqual(take(pf_protocol_method_types("PFShapeSource", "rangeForName:", 1)), "{_NSRange=QQ}@:@")
        XCTAssertNil(take(pf_protocol_method_types("PFShapeSource", "displayName", 1)))
        // Platform fact: the GCC runtime's protocol records carry no @optional methods,
        // so their types are not available to the engine.
        XCTAssertNil(take(pf_protocol_method_types("PFShapeSource", "weightFor:", 1)))
    }

    func testProbeAndWorkerNatively() {
        pf_probe_reset()
        pf_worker_work()
        XCTAssertEqual(take(pf_probe_entries()), "native-work@main")
        XCTAssertEqual(pf_worker_compute(4), 4)
        let done = expectation(description: "background record")
        DispatchQueue.global().async {
            pf_probe_record("bg-tag")
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(take(pf_probe_entries()), "native-work@main,bg-tag@bg")
        pf_probe_reset()
        XCTAssertEqual(pf_probe_count(), 0)
    }

    func testDisposableRecordsItsDealloc() {
        pf_probe_reset()
        pf_release(pf_new("PFDisposable"))
        XCTAssertEqual(take(pf_probe_entries()), "native-dealloc@main")
        pf_probe_reset()
    }

    func testPointersNatively() {
        XCTAssertEqual(pf_memory_echo_pointer(), -1)
        XCTAssertNil(take(pf_memory_echo_chars()))
        XCTAssertEqual(take(pf_memory_record_name("abc")), "\"name:abc\"")
    }

    func testErrorsNatively() {
        var raised: Int32 = 0
        var text: UnsafeMutablePointer<CChar>?
        XCTAssertEqual(pf_failing_load("bad", &text, &raised), 0)
        XCTAssertEqual(take(text), "PFErrorDomain/42/bad name")
        XCTAssertEqual(pf_failing_load("good", &text, &raised), 1)
        XCTAssertNil(take(text))
        XCTAssertEqual(pf_failing_load_without_error_pointer("bad", &raised), 0)
        XCTAssertEqual(pf_failing_risky_value(&raised), 7)
        XCTAssertEqual(take(pf_failing_risky_name(&raised)), "\"safe\"")
        let rect = pf_failing_risky_rect(&raised)
        XCTAssertEqual([rect.x, rect.y, rect.width, rect.height], [1, 2, 3, 4])
        XCTAssertEqual(pf_failing_risky_double(&raised), 2.5)
        XCTAssertEqual(take(pf_failing_risky_void(&raised)), "orig-void")
        XCTAssertEqual(raised, 0)
        let failing = pf_new("PFFailing")
        defer { pf_release(failing) }
        XCTAssertEqual(take(pf_send_str(failing, "explode:", "kaboom")), "!PFExplosion: kaboom")
    }

    func testAccumulatorOnManyThreadsNatively() {
        let objects = (0..<20).map { pf_accumulator_new(Int32($0))! }
        defer { objects.forEach { pf_release($0) } }
        DispatchQueue.concurrentPerform(iterations: objects.count) { index in
            for _ in 0..<50 { pf_accumulator_add(objects[index], Int32(index)) }
        }
        for (index, object) in objects.enumerated() {
            XCTAssertEqual(pf_accumulator_count(object), 50)
            XCTAssertEqual(pf_accumulator_all_equal(object, Int32(index)), 1)
        }
    }

    func testSelectorsNatively() {
        XCTAssertEqual(take(pf_selectors_join("a", "b", "c")), "\"a+b+c\"")
        XCTAssertEqual(take(pf_selectors_with_underscore(3)), "\"orig:3\"")
        XCTAssertEqual(take(pf_selectors_two_parts(1, 2)), "\"orig:1,2\"")
        XCTAssertEqual(take(pf_selectors_no_args()), "\"none\"")
        XCTAssertEqual(pf_selectors_single(1), 101)
        XCTAssertEqual(take(pf_selectors_class_join("a", "b")), "\"a&b\"")
    }

    func testRegistrySharesObjects() {
        let object = pf_make_sample("object")
        defer { pf_release(object) }
        pf_registry_set("baseline", object)
        XCTAssertEqual(pf_registry_get("baseline"), object)
        XCTAssertEqual(take(pf_send_class_str("PFRegistry", "objectForKey:", "baseline")), "<NSObject>")
        pf_registry_remove("baseline")
        XCTAssertNil(pf_registry_get("baseline"))
    }
}
