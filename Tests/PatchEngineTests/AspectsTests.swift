import Foundation
import XCTest
import PatchRuntime
import PatchFixtures

/// Aspects' own test cases (AspectsDemoTests), ported as facts: what is hooked and what a native
/// caller must see. Run on both dispatcher routes where the dispatcher is involved.
final class AspectsTests: ToolkitTestCase {

    // MARK: - Positions

    func testBeforeInsteadAfterOnClass() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            hook(f.base, "ping", HookOption.before, "before")
            hook(f.base, "ping", HookOption.after, "after")
            pf_tk_ping(object)
            XCTAssertEqual(log(), "before ping after", "\(route)")
            let instead = hook(f.base, "ping", HookOption.instead, "instead")
            pf_tk_ping(object)
            XCTAssertEqual(log(), "before instead after", "\(route): the original does not run under an Instead hook")
            XCTAssertEqual(pf_tk_remove(instead), 1)
            pf_tk_ping(object)
            XCTAssertEqual(log(), "before ping after", "\(route)")
        }
    }

    func testBeforeInsteadAfterOnOneInstance() throws {
        for route in Self.routes {
            let f = try family(route)
            let hooked = make(f.base), other = make(f.base)
            hook(hooked, "ping", HookOption.before, "before")
            hook(hooked, "ping", HookOption.after, "after")
            pf_tk_ping(hooked)
            pf_tk_ping(other)
            XCTAssertEqual(log(), "before ping after ping", "\(route): only the hooked object runs the hooks")
            hook(hooked, "ping", HookOption.instead, "instead")
            pf_tk_ping(hooked)
            pf_tk_ping(other)
            XCTAssertEqual(log(), "before instead after ping", "\(route)")
        }
    }

    /// Aspects' testAspectsCalledPerObject and testExample: a hook on one object fires for calls
    /// of that object only, including calls made from inside another object's method.
    func testInstanceHookFiresOnlyForThatObject() throws {
        let f = try family()
        let first = make(f.base), second = make(f.base)
        hook(first, "ping", HookOption.after, "hooked")
        pf_tk_ping(second)
        XCTAssertEqual(log(), "ping")
        pf_tk_ping(first)
        XCTAssertEqual(log(), "ping hooked")
    }

    // MARK: - Order

    /// Class Before, instance Before, Instead (or the original), class After, instance After;
    /// hooks of one position in registration order, however registrations interleave.
    func testOrderOfPositionsAndRegistration() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            hook(object, "ping", HookOption.after, "iA1")
            hook(f.base, "ping", HookOption.after, "cA1")
            hook(object, "ping", HookOption.before, "iB1")
            hook(f.base, "ping", HookOption.before, "cB1")
            hook(f.base, "ping", HookOption.after, "cA2")
            hook(object, "ping", HookOption.before, "iB2")
            hook(f.base, "ping", HookOption.before, "cB2")
            hook(object, "ping", HookOption.after, "iA2")
            pf_tk_ping(object)
            XCTAssertEqual(log(), "cB1 cB2 iB1 iB2 ping cA1 cA2 iA1 iA2", "\(route)")
            hook(object, "ping", HookOption.instead, "iI", PFHookInvoke)
            hook(f.base, "ping", HookOption.instead, "cI")
            pf_tk_ping(object)
            XCTAssertEqual(log(), "cB1 cB2 iB1 iB2 cI iI ping cA1 cA2 iA1 iA2",
                           "\(route): every Instead hook runs, class ones first; one of them invokes the original")
        }
    }

    /// Aspects' testExecutionOrderAndMultipleRegistation: Before hooks have run and After hooks
    /// have not while the original runs (here it calls a block argument).
    func testBeforeRunsBeforeAndAfterRunsAfterTheOriginalsBody() throws {
        let f = try family()
        let object = make(f.base)
        let before = hook(f.base, "runBlock:", HookOption.before, "before")
        let after1 = hook(f.base, "runBlock:", HookOption.after, "after1")
        let after2 = hook(f.base, "runBlock:", HookOption.after, "after2")
        XCTAssertNil(take(pf_tk_run_block(object)))
        XCTAssertEqual(log(), "before runBlock block after1 after2")
        XCTAssertEqual(pf_tk_remove(after1), 1)
        XCTAssertEqual(pf_tk_remove(before), 1)
        XCTAssertEqual(pf_tk_remove(after2), 1)
        XCTAssertEqual(pf_tk_remove(after1), 0, "a token removes once")
        XCTAssertEqual(pf_tk_remove(before), 0)
        XCTAssertEqual(pf_tk_remove(after2), 0)
        XCTAssertNil(take(pf_tk_run_block(object)))
        XCTAssertEqual(log(), "runBlock block")
    }

    func testHookReceivesABlockArgument() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            hook(f.base, "runBlock:", HookOption.before, "hook", PFHookCallBlockArgument)
            XCTAssertNil(take(pf_tk_run_block(object)), "\(route)")
            XCTAssertEqual(log(), "hook block runBlock block", "\(route): the hook got the caller's block and could call it")
        }
    }

    // MARK: - Removal

    func testTokenRemovesOnceThenAnswersNo() throws {
        let f = try family()
        let object = make(f.base)
        let token = hook(f.base, "ping", HookOption.after, "hook")
        pf_tk_ping(object)
        XCTAssertEqual(log(), "ping hook")
        XCTAssertEqual(pf_tk_remove(token), 1)
        pf_tk_ping(object)
        XCTAssertEqual(log(), "ping")
        XCTAssertEqual(pf_tk_remove(token), 0)
    }

    func testInstanceTokenRemoval() throws {
        let f = try family()
        let object = make(f.base)
        let token = hook(object, "ping", HookOption.instead, "instead")
        pf_tk_ping(object)
        XCTAssertEqual(log(), "instead")
        XCTAssertEqual(pf_tk_remove(token), 1)
        pf_tk_ping(object)
        XCTAssertEqual(log(), "ping")
        XCTAssertEqual(pf_tk_remove(token), 0)
    }

    func testAutomaticRemovalFiresOnce() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            let classToken = hook(f.base, "ping", HookOption.before | HookOption.automaticRemoval, "classOnce")
            let objectToken = hook(object, "ping", HookOption.after | HookOption.automaticRemoval, "objectOnce")
            pf_tk_ping(object)
            XCTAssertEqual(log(), "classOnce ping objectOnce", "\(route)")
            pf_tk_ping(object)
            XCTAssertEqual(log(), "ping", "\(route): both removed themselves after firing")
            XCTAssertEqual(pf_tk_remove(classToken), 0, "\(route): already removed automatically")
            XCTAssertEqual(pf_tk_remove(objectToken), 0, "\(route)")
        }
    }

    func testAutomaticRemovalOfAnInstanceHookWaitsForThatInstance() throws {
        let f = try family()
        let hooked = make(f.base), other = make(f.base)
        hook(hooked, "ping", HookOption.after | HookOption.automaticRemoval, "once")
        pf_tk_ping(other)
        pf_tk_ping(other)
        pf_tk_ping(hooked)
        pf_tk_ping(hooked)
        XCTAssertEqual(log(), "ping ping ping once ping")
    }

    // MARK: - The info object

    func testInfoInstanceAndOriginalInvocation() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.mid)
            hook(f.base, "step", HookOption.before, "class", PFHookLogInfo)
            hook(object, "step", HookOption.after, "object", PFHookLogInfo)
            XCTAssertEqual(step(object), "\"base>mid\"")
            XCTAssertEqual(log(), "Mid class:\(f.mid):step:same Base object:\(f.mid):step:same",
                           "\(route): info.instance is the receiver (a \(f.mid)), the invocation targets it and carries the selector")
        }
    }

    func testArgumentsAreBoxedAndNilBecomesNSNull() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            hook(f.base, "describe:number:ratio:flag:", HookOption.before, "args", PFHookLogArguments)
            XCTAssertEqual(take(pf_tk_describe(object, nil, 7, 2.5, 1)), "[null, 7, 2.5, 1]")
            XCTAssertEqual(log(), "args([null, 7, 2.5, 1]) describe", "\(route)")
            let text = pf_make_sample("string")
            defer { pf_release(text) }
            let quoted = take(pf_describe(text)) ?? "?"
            XCTAssertEqual(take(pf_tk_describe(object, text, -3, 0.25, 0)), "[\(quoted), -3, 0.25, 0]")
            XCTAssertEqual(log(), "args([\(quoted), -3, 0.25, 0]) describe", "\(route)")
        }
    }

    func testInsteadInvokesTheOriginalAndChangesItsReturnValue() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            let token = hook(f.base, "add:to:", HookOption.instead, "x10", PFHookAddTimesTen)
            XCTAssertEqual(pf_tk_add(object, 2, 3), 50, "\(route)")
            XCTAssertEqual(log(), "add x10=50", "\(route)")
            XCTAssertEqual(pf_tk_remove(token), 1)
            XCTAssertEqual(pf_tk_add(object, 2, 3), 5, "\(route)")
            XCTAssertEqual(log(), "add", "\(route)")
        }
    }

    func testInsteadBlockReturningTheMethodsTypeProvidesTheResult() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            hook(object, "add:to:", HookOption.instead, "product", PFHookAddReturnsProduct)
            XCTAssertEqual(pf_tk_add(object, 6, 7), 42, "\(route)")
            XCTAssertEqual(log(), "product", "\(route): the original did not run")
        }
    }

    func testInsteadWithoutInvokingGivesZeroAndNil() throws {
        let f = try family()
        let object = make(f.base)
        hook(f.base, "add:to:", HookOption.instead, "skip")
        hook(f.base, "step", HookOption.instead, "skip")
        XCTAssertEqual(pf_tk_add(object, 2, 3), 0)
        XCTAssertEqual(step(object), "nil")
        XCTAssertEqual(log(), "skip skip")
    }

    /// Aspects' testInsteadHook (UILabel -text): per-object and global Instead hooks that set the
    /// return value; the object's own hook wins over a later global one; removing restores.
    func testInsteadSetsReturnValuePerObjectAndGlobally() throws {
        let f = try family()
        let first = make(f.base), second = make(f.base), third = make(f.base)
        let firstToken = hook(first, "step", HookOption.instead, "Custom Text", PFHookSetLabel)
        XCTAssertEqual(step(first), "\"Custom Text\"")
        XCTAssertEqual(step(second), "\"base\"")
        let secondToken = hook(second, "step", HookOption.instead, "Custom Text2", PFHookSetLabel)
        XCTAssertEqual(step(second), "\"Custom Text2\"")
        let global = hook(f.base, "step", HookOption.instead, "Global", PFHookSetLabel)
        XCTAssertEqual(step(second), "\"Custom Text2\"", "instance Instead hooks run after class ones")
        XCTAssertEqual(step(third), "\"Global\"")
        XCTAssertEqual(pf_tk_remove(global), 1)
        XCTAssertEqual(step(third), "\"base\"")
        XCTAssertEqual(step(first), "\"Custom Text\"")
        XCTAssertEqual(pf_tk_remove(firstToken), 1)
        XCTAssertEqual(step(first), "\"base\"")
        XCTAssertEqual(pf_tk_remove(firstToken), 0)
        XCTAssertEqual(pf_tk_remove(secondToken), 1)
    }

    func testInvokeOriginalReturnsTheBoxedResult() throws {
        let f = try family()
        let object = make(f.leaf)
        hook(f.base, "add:to:", HookOption.instead, "sum", PFHookInvokeOriginal)
        hook(f.leaf, "step", HookOption.instead, "step", PFHookInvokeOriginal)
        XCTAssertEqual(pf_tk_add(object, 20, 22), 42)
        XCTAssertEqual(step(object), "\"base>mid\"")
        XCTAssertEqual(log(), "add sum=42 Mid Base step=\"base>mid\"")
    }

    func testBlockMayTakeFewerArgumentsThanTheMethod() throws {
        let f = try family()
        let object = make(f.base)
        hook(f.base, "add:to:", HookOption.before, "first", PFHookAddFirstArgument)
        hook(f.base, "add:to:", HookOption.after, "none")
        XCTAssertEqual(pf_tk_add(object, 4, 5), 9)
        XCTAssertEqual(log(), "first(4) add none")
    }

    /// Aspects' testStructReturn / testDoubleReturn / testLongLongReturn: After hooks leave the
    /// return value alone.
    func testReturnValuesSurviveAfterHooks() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            hook(object, "rect", HookOption.after, "rect")
            hook(object, "ratio", HookOption.after, "ratio")
            hook(object, "big", HookOption.after, "big")
            XCTAssertEqual(take(pf_tk_rect(object)), "100 100 100 100", "\(route)")
            XCTAssertEqual(pf_tk_ratio(object), 1.5, "\(route)")
            XCTAssertEqual(pf_tk_big(object), 99, "\(route)")
            XCTAssertEqual(log(), "rect ratio big", "\(route)")
        }
    }

    func testBlockReceivesArgumentsOfMixedTypes() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            hook(f.base, "describe:number:ratio:flag:", HookOption.after, "all", PFHookLogAllArguments)
            let text = pf_make_sample("string")
            defer { pf_release(text) }
            let quoted = take(pf_describe(text)) ?? "?"
            XCTAssertEqual(take(pf_tk_describe(object, text, -7, 0.125, 1)), "[\(quoted), -7, 0.125, 1]")
            XCTAssertEqual(take(pf_tk_describe(object, nil, 3, -2.5, 0)), "[null, 3, -2.5, 0]")
            XCTAssertEqual(log(), "describe all(\(quoted) -7 0.125 1) describe all(nil 3 -2.5 0)", "\(route)")
        }
    }

    func testInsteadSetsAStructReturnValue() throws {
        for route in Self.routes {
            let f = try family(route)
            let hooked = make(f.base), other = make(f.base)
            let token = hook(hooked, "rect", HookOption.instead, "rect", PFHookSetRect)
            XCTAssertEqual(take(pf_tk_rect(hooked)), "1 2 3 4", "\(route)")
            XCTAssertEqual(take(pf_tk_rect(other)), "100 100 100 100", "\(route)")
            XCTAssertEqual(pf_tk_remove(token), 1)
            XCTAssertEqual(take(pf_tk_rect(hooked)), "100 100 100 100", "\(route)")
        }
    }

    /// An exception raised by a hook reaches the caller; the hooks and the original work
    /// normally on the next call, on the same thread.
    func testExceptionInAHookReachesTheCallerAndLeavesHooksWorking() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.leaf)
            hook(f.base, "add:to:", HookOption.before, "before")
            hook(f.mid, "add:to:", HookOption.after, "after")
            let raising = hook(object, "add:to:", HookOption.before, "boom", PFHookRaise)
            XCTAssertEqual(pf_tk_add(object, 1, 2), Int32.min, "\(route): the exception reached the caller")
            XCTAssertEqual(log(), "!PFHookFailure:boom", "\(route): nothing after the raising hook ran")
            XCTAssertEqual(pf_tk_remove(raising), 1)
            XCTAssertEqual(pf_tk_add(object, 1, 2), 3, "\(route)")
            XCTAssertEqual(log(), "before add after", "\(route)")
            hook(f.base, "step", HookOption.instead, "step-boom", PFHookRaise)
            XCTAssertEqual(step(object), "!PFHookFailure: step-boom", "\(route)")
            XCTAssertEqual(log(), "Mid", "\(route): Mid's -step ran up to its [super step]")
            XCTAssertEqual(pf_tk_add(object, 2, 2), 4, "\(route)")
            XCTAssertEqual(log(), "before add after", "\(route)")
        }
    }

    /// More hooks on one selector than a call can hold on its stack: every one runs, in order.
    func testManyHooksOnOneSelectorAllRun() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.base)
            for n in 0..<100 { hook(f.base, "ping", n % 2 == 0 ? HookOption.before : HookOption.after, "h\(n)") }
            pf_tk_ping(object)
            let before = stride(from: 0, to: 100, by: 2).map { "h\($0)" }
            let after = stride(from: 1, to: 100, by: 2).map { "h\($0)" }
            XCTAssertEqual(log(), (before + ["ping"] + after).joined(separator: " "), "\(route)")
        }
    }

    // MARK: - Refused hooks

    func testBlacklistedSelectorsAreRefused() throws {
        let f = try family()
        let object = make(f.base)
        for selector in ["retain", "release", "autorelease", "forwardInvocation:"] {
            XCTAssertEqual(refusal(f.base, selector, HookOption.after), "0: Selector \(selector) is blacklisted.")
            XCTAssertEqual(refusal(object, selector, HookOption.before), "0: Selector \(selector) is blacklisted.")
        }
        pf_tk_ping(object)
        XCTAssertEqual(log(), "ping")
    }

    func testUnknownSelectorIsRefused() throws {
        let f = try family()
        let object = make(f.base)
        XCTAssertEqual(refusal(object, "fakeSelector", HookOption.before), "1: Unable to find selector -[\(f.base) fakeSelector].")
        XCTAssertEqual(refusal(f.base, "fakeSelector2", HookOption.before), "1: Unable to find selector -[\(f.base) fakeSelector2].")
        XCTAssertTrue(refusal(f.base, "kind", HookOption.before).hasPrefix("1: "),
                      "+kind is a class method: hooking it on the class hooks instance methods, which don't have it")
    }

    func testDeallocOnlyBefore() throws {
        let f = try family()
        let object = make(f.base)
        for options in [HookOption.after, HookOption.instead] {
            XCTAssertEqual(refusal(object, "dealloc", options),
                           "2: AspectPositionBefore is the only valid position when hooking dealloc.")
            XCTAssertEqual(refusal(f.base, "dealloc", options),
                           "2: AspectPositionBefore is the only valid position when hooking dealloc.")
        }
    }

    func testSomethingThatIsNotABlockIsRefusedAsMissingSignature() throws {
        let f = try family()
        let object = make(f.base)
        for kind in [PFHookNotABlock, PFHookNil, PFHookNoSignature] {
            let message = refusal(object, "ping", HookOption.before, kind)
            XCTAssertTrue(message.hasPrefix("5: The block "), "\(kind): \(message)")
            XCTAssertTrue(message.hasSuffix(" doesn't contain a type signature."), "\(kind): \(message)")
        }
        pf_tk_ping(object)
        XCTAssertEqual(log(), "ping")
    }

    func testIncompatibleBlockSignaturesAreRefused() throws {
        let f = try family()
        for kind in [PFHookWrongArgumentType, PFHookTooManyArguments, PFHookInfoNotAnObject] {
            let message = refusal(f.base, "add:to:", HookOption.before, kind)
            XCTAssertTrue(message.hasPrefix("6: Block signature "), "\(kind): \(message)")
            XCTAssertTrue(message.contains("doesn't match -[\(f.base) add:to:]"), "\(kind): \(message)")
        }
        let wrongReturn = refusal(f.base, "add:to:", HookOption.instead, PFHookWrongReturnType)
        XCTAssertTrue(wrongReturn.hasPrefix("6: "), wrongReturn)
        let object = make(f.base)
        XCTAssertEqual(pf_tk_add(object, 1, 2), 3)
        XCTAssertEqual(log(), "add", "no refused block was installed")
    }

    // MARK: - dealloc

    func testDeallocBeforeHookRunsOnceWhenTheObjectIsFreed() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = pf_new(f.base)
            let token = hook(object, "dealloc", HookOption.before, "beforeDealloc")
            pf_tk_ping(object)
            XCTAssertEqual(log(), "ping", "\(route)")
            release(object)
            XCTAssertEqual(log(), "beforeDealloc dealloc", "\(route)")
            XCTAssertEqual(pf_tk_remove(token), 0, "\(route): the hook went with its object")
            let next = make(f.base)
            pf_tk_ping(next)
            XCTAssertEqual(log(), "ping", "\(route)")
        }
    }

    func testClassLevelDeallocHookRunsForEveryObject() throws {
        let f = try family()
        let token = hook(f.mid, "dealloc", HookOption.before, "beforeDealloc")
        release(pf_new(f.mid))
        release(pf_new(f.leaf))
        release(pf_new(f.base))
        XCTAssertEqual(log(), "beforeDealloc dealloc beforeDealloc dealloc dealloc")
        XCTAssertEqual(pf_tk_remove(token), 1)
        release(pf_new(f.mid))
        XCTAssertEqual(log(), "dealloc")
    }

    // MARK: - Neighbours

    /// Aspects' testEnsureForwardInvocationIsCalled: a class's own -forwardInvocation: still gets
    /// the selectors it handles while one of its methods is hooked, and after the hook is removed.
    func testCustomForwardInvocationStillWorks() throws {
        for route in Self.routes {
            let f = try family(route)
            let object = make(f.forwarder)
            let token = hook(f.forwarder, "test", HookOption.instead, "instead")
            XCTAssertNil(take(pf_tk_send_void(object, "test")))
            XCTAssertNil(take(pf_tk_send_void(object, "nonExistingSelector")))
            XCTAssertEqual(log(), "instead customForward", "\(route)")
            XCTAssertEqual(pf_tk_remove(token), 1)
            XCTAssertNil(take(pf_tk_send_void(object, "test")))
            XCTAssertNil(take(pf_tk_send_void(object, "nonExistingSelector")))
            XCTAssertEqual(log(), "test customForward", "\(route)")
        }
    }

    /// Aspects' testKVOCoexistance, plus the order Aspects could not handle (#30): KVO first.
    func testKVOAndInstanceHooksInEitherOrder() throws {
        for route in Self.routes {
            let f = try family(route)
            let hookFirst = make(f.base)
            let hookToken = hook(hookFirst, "setString:", HookOption.after, "hook")
            let observer = pf_tk_observe(hookFirst, "string")
            XCTAssertNil(take(pf_tk_set_string(hookFirst, "test")))
            XCTAssertEqual(log(), "setString hook kvo:string", "\(route): hook first, then KVO")
            pf_tk_unobserve(observer)
            XCTAssertNil(take(pf_tk_set_string(hookFirst, "test2")))
            XCTAssertEqual(log(), "setString hook", "\(route): KVO gone, hook stays")
            XCTAssertEqual(pf_tk_remove(hookToken), 1)

            let kvoFirst = make(f.base)
            let observer2 = pf_tk_observe(kvoFirst, "string")
            let hookToken2 = hook(kvoFirst, "setString:", HookOption.after, "hook")
            XCTAssertNil(take(pf_tk_set_string(kvoFirst, "test")))
            let entries = log()
            XCTAssertTrue(entries == "setString hook kvo:string" || entries == "setString kvo:string hook",
                          "\(route): KVO first, then the hook: \(entries)")
            XCTAssertEqual(pf_tk_remove(hookToken2), 1)
            XCTAssertNil(take(pf_tk_set_string(kvoFirst, "again")))
            XCTAssertEqual(log(), "setString kvo:string", "\(route)")
            pf_tk_unobserve(observer2)
        }
    }
}
