import Foundation
import XCTest
import PatchEngine
import PatchFixtures
import PatchRuntime

/// Module fan-out (TYModule's AppDelegate split) on the dispatcher: what native callers of a
/// delegate's lifecycle methods see. Fixtures: PFModulesFixture.h.
final class ModuleFanOutTests: PatchTestCase {
    private var objects: [UnsafeMutableRawPointer] = []
    private var attachedClasses: [String] = []
    private var tokens: [UnsafeMutableRawPointer] = []

    override func setUp() {
        super.setUp()
        pf_modules_log_reset()
        pf_modules_capture_errors(1)
    }

    override func tearDown() {
        for token in tokens { _ = pf_modules_token_remove(token); pf_release(token) }
        tokens = []
        for name in attachedClasses { _ = pf_modules_detach(name) }
        attachedClasses = []
        pf_modules_unregister_all()
        for object in objects { pf_release(object) }
        objects = []
        pf_modules_capture_errors(0)
        super.tearDown()
    }

    // MARK: Helpers

    /// A new runtime subclass of `superclass` (methods added for modules can't be removed, so
    /// every test that attaches gets its own class).
    private func freshClass(_ superclass: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        let name = uniqueClassName("PFModDelegate")
        XCTAssertEqual(pf_modules_make_class(name, superclass), 1, file: file, line: line)
        return name
    }

    /// A new instance released at tear-down.
    private func make(_ className: String) -> UnsafeMutableRawPointer {
        let object = pf_new(className)!
        objects.append(object)
        return object
    }

    private func recorder(_ name: String) -> UnsafeMutableRawPointer {
        let object = pf_modules_recorder_new(name)!
        objects.append(object)
        return object
    }

    private func attach(_ className: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(take(pf_modules_attach_protocol(className)), file: file, line: line)
        attachedClasses.append(className)
    }

    private func attach(_ className: String, selectors: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(take(pf_modules_attach_selectors(className, selectors)), file: file, line: line)
        attachedClasses.append(className)
    }

    private func attachOnSetDelegate(selectors: String? = nil, file: StaticString = #filePath, line: UInt = #line) -> UnsafeMutableRawPointer? {
        var error: UnsafeMutablePointer<CChar>?
        let token = pf_modules_attach_on_setter("PFFakeApplication", "setDelegate:", selectors, &error)
        XCTAssertNil(take(error), file: file, line: line)
        if let token { tokens.append(token) }
        return token
    }

    private func register(_ classNames: String...) {
        for name in classNames { XCTAssertEqual(pf_modules_register_class(name), 1, name) }
    }

    /// The log since the last call (then emptied).
    private func log() -> String {
        defer { pf_modules_log_reset() }
        return take(pf_modules_log()) ?? ""
    }

    // MARK: Fan-out order and arguments

    func testEachLifecycleCallRunsTheDelegateThenEveryRespondingModuleInRegistrationOrder() {
        let delegateClass = freshClass("PFAppDelegate")
        register("PFLogModule")
        XCTAssertEqual(pf_modules_register_object(recorder("a")), 1)
        register("PFDeepLinkModule")
        attach(delegateClass)
        let delegate = make(delegateClass)

        XCTAssertEqual(pf_delegate_launch(delegate), 1)
        XCTAssertEqual(log(), "delegate:launch log:launch a:launch")   // PFDeepLinkModule has no launch method
        XCTAssertEqual(pf_delegate_open_url(delegate, "x:1"), 0)
        XCTAssertEqual(log(), "delegate:open(x:1) log:open(x:1) a:open(x:1) deeplink:open(x:1)")
        XCTAssertEqual(pf_delegate_terminate(delegate), 0)
        XCTAssertEqual(log(), "delegate:terminate log:terminate a:terminate")
    }

    func testTheHostSeesTheFanOutThroughItsOwnCalls() {
        let delegateClass = freshClass("PFAppDelegate")
        register("PFLogModule", "PFDeepLinkModule")
        attach(delegateClass)
        let app = pf_app_new()!
        objects.append(app)
        let delegate = make(delegateClass)
        pf_app_set_delegate(app, delegate)

        XCTAssertEqual(pf_app_launch(app), 1)
        XCTAssertEqual(log(), "delegate:launch log:launch")
        XCTAssertEqual(pf_app_open_url(app, "deep:item/7"), 1)
        XCTAssertEqual(log(), "delegate:open(deep:item/7) log:open(deep:item/7) deeplink:open(deep:item/7)")
    }

    func testModulesRegisteredLaterJoinAndUnregisteredOnesLeave() {
        let delegateClass = freshClass("PFAppDelegate")
        attach(delegateClass)
        let delegate = make(delegateClass)
        XCTAssertEqual(pf_delegate_terminate(delegate), 0)
        XCTAssertEqual(log(), "delegate:terminate")

        let a = recorder("a"), b = recorder("b")
        XCTAssertEqual(pf_modules_register_object(a), 1)
        XCTAssertEqual(pf_modules_register_object(b), 1)
        XCTAssertEqual(pf_delegate_terminate(delegate), 0)
        XCTAssertEqual(log(), "delegate:terminate a:terminate b:terminate")

        XCTAssertEqual(pf_modules_unregister_object(a), 1)
        XCTAssertEqual(pf_delegate_terminate(delegate), 0)
        XCTAssertEqual(log(), "delegate:terminate b:terminate")
        XCTAssertEqual(take(pf_modules_registered_names()), "b")
    }

    // MARK: Registration

    func testAModuleClassIsInstantiatedOnceLazilyAndReleasedWhenUnregistered() {
        let delegateClass = freshClass("PFAppDelegate")
        attach(delegateClass)
        let delegate = make(delegateClass)
        let made = pf_modules_init_count("PFDeepLinkModule"), alive = pf_modules_live_count("PFDeepLinkModule")

        register("PFDeepLinkModule")
        XCTAssertEqual(pf_modules_init_count("PFDeepLinkModule"), made, "registering makes no instance")
        XCTAssertEqual(take(pf_modules_instance_of("PFDeepLinkModule")), "nil")

        for _ in 0..<3 { XCTAssertEqual(pf_delegate_open_url(delegate, "deep:x"), 1) }
        XCTAssertEqual(pf_modules_init_count("PFDeepLinkModule"), made + 1)
        XCTAssertEqual(pf_modules_live_count("PFDeepLinkModule"), alive + 1)
        XCTAssertEqual(take(pf_modules_instance_of("PFDeepLinkModule")), "<PFDeepLinkModule>")

        XCTAssertEqual(pf_modules_unregister_class("PFDeepLinkModule"), 1)
        XCTAssertEqual(pf_modules_live_count("PFDeepLinkModule"), alive, "unregistering releases the instance")
        XCTAssertEqual(take(pf_modules_instance_of("PFDeepLinkModule")), "nil")
        _ = log()
        XCTAssertEqual(pf_delegate_open_url(delegate, "deep:x"), 0)
        XCTAssertEqual(log(), "delegate:open(deep:x)")
    }

    func testRegistrationRefusesDuplicatesAndUnknownsAndRetainsObjects() {
        let object = recorder("r")
        let retainCount = pf_retain_count(object)
        XCTAssertEqual(pf_modules_register_class("PFLogModule"), 1)
        XCTAssertEqual(pf_modules_register_class("PFLogModule"), 0)
        XCTAssertEqual(pf_modules_register_class("NoSuchModuleClass"), 0)
        XCTAssertEqual(pf_modules_register_object(object), 1)
        XCTAssertEqual(pf_modules_register_object(object), 0)
        XCTAssertEqual(pf_retain_count(object), retainCount + 1)
        XCTAssertEqual(take(pf_modules_registered()), "[class:PFLogModule, <PFRecorderModule>]")

        XCTAssertEqual(pf_modules_unregister_object(object), 1)
        XCTAssertEqual(pf_modules_unregister_object(object), 0)
        XCTAssertEqual(pf_retain_count(object), retainCount)
        XCTAssertEqual(pf_modules_unregister_class("PFDeepLinkModule"), 0)
        XCTAssertEqual(take(pf_modules_registered()), "[class:PFLogModule]")
    }

    // MARK: Results

    func testABoolResultIsYesWhenTheDelegateOrAnyModuleSaysYes() {
        let delegateClass = freshClass("PFAppDelegate")
        register("PFLogModule", "PFDeepLinkModule")
        attach(delegateClass)
        let delegate = make(delegateClass)

        XCTAssertEqual(pf_delegate_open_url(delegate, "app:home"), 1, "the delegate said YES")
        XCTAssertEqual(log(), "delegate:open(app:home) log:open(app:home) deeplink:open(app:home)",
                       "modules still run after a YES")
        XCTAssertEqual(pf_delegate_open_url(delegate, "deep:item"), 1, "a module said YES")
        XCTAssertEqual(log(), "delegate:open(deep:item) log:open(deep:item) deeplink:open(deep:item)")
        XCTAssertEqual(pf_delegate_open_url(delegate, "web:page"), 0, "nobody said YES")
        XCTAssertEqual(log(), "delegate:open(web:page) log:open(web:page) deeplink:open(web:page)")
        // PFLogModule answers launch with NO: the delegate's YES stands.
        XCTAssertEqual(pf_delegate_launch(delegate), 1)
    }

    func testOtherResultsAreTheFirstNonZeroOneInCallOrder() {
        let delegateClass = freshClass("PFAppDelegate")
        register("PFDeepLinkModule")
        attach(delegateClass)
        let delegate = make(delegateClass)

        XCTAssertEqual(pf_delegate_orientations(delegate, "main"), 2, "the delegate's non-zero answer is kept")
        XCTAssertEqual(log(), "delegate:orientations(main) deeplink:orientations(main)")
        XCTAssertEqual(pf_delegate_orientations(delegate, "side"), 8, "the delegate's 0 does not hide the module's")
        XCTAssertEqual(log(), "delegate:orientations(side) deeplink:orientations(side)")

        // Not implemented by the delegate at all: the first module that answers decides.
        XCTAssertEqual(pf_modules_register_object(recorder("first")), 1)
        register("PFStateModule")
        XCTAssertEqual(take(pf_delegate_restoration(delegate)), "\"first\"")
        XCTAssertEqual(log(), "first:restoration state:restoration")
    }

    func testAResultNobodyGivesIsZero() {
        let delegateClass = freshClass("PFBareDelegate")
        register("PFStateModule")
        attach(delegateClass)
        let delegate = make(delegateClass)
        XCTAssertEqual(take(pf_delegate_restoration(delegate)), "\"state\"")
        XCTAssertEqual(pf_modules_unregister_class("PFStateModule"), 1)
        // The added method stays (the runtime can't remove methods); alone, it returns nil.
        XCTAssertEqual(take(pf_delegate_restoration(delegate)), "nil")
    }

    // MARK: Methods only modules implement

    func testAMethodOnlyAModuleImplementsIsAddedToTheDelegateOnceAModuleHasIt() {
        let delegateClass = freshClass("PFBareDelegate")
        attach(delegateClass, selectors: "launch,open,active,terminate")
        XCTAssertEqual(pf_instances_respond(delegateClass, "applicationDidBecomeActive:"), 0,
                       "nobody implements it yet: the delegate must not claim it")
        XCTAssertEqual(pf_modules_is_attached(delegateClass, "active"), 0)
        XCTAssertEqual(pf_modules_is_attached(delegateClass, "terminate"), 1)

        register("PFStateModule")
        XCTAssertEqual(pf_instances_respond(delegateClass, "applicationDidBecomeActive:"), 1)
        XCTAssertEqual(pf_modules_is_attached(delegateClass, "active"), 1)
        XCTAssertEqual(pf_instances_respond(delegateClass, "application:didFinishLaunchingWithOptions:"), 0)

        let app = pf_app_new()!
        objects.append(app)
        pf_app_set_delegate(app, make(delegateClass))
        XCTAssertEqual(pf_app_become_active(app), 0)
        XCTAssertEqual(log(), "state:active")
        XCTAssertEqual(pf_app_launch(app), -1, "no module has launch: the host sees no launch method")
        XCTAssertEqual(pf_app_terminate(app), 0)
        XCTAssertEqual(log(), "bare:terminate")

        register("PFLogModule")
        let delegate = make(delegateClass)
        XCTAssertEqual(pf_delegate_launch(delegate), 0, "the delegate's part returns NO, PFLogModule's too")
        XCTAssertEqual(pf_delegate_terminate(delegate), 0)
        XCTAssertEqual(log(), "log:launch bare:terminate log:terminate")
    }

    func testASubclassOfAClassWithoutTheMethodsReachesTheModules() {
        let base = freshClass("PFBareDelegate")
        let delegateClass = freshClass(base)
        register("PFLogModule")
        attach(delegateClass)
        let delegate = make(delegateClass)
        XCTAssertEqual(pf_delegate_open_url(delegate, "x:1"), 0)
        XCTAssertEqual(pf_delegate_terminate(delegate), 0)
        XCTAssertEqual(log(), "log:open(x:1) bare:terminate log:terminate")
        XCTAssertEqual(pf_instances_respond(base, "application:openURL:options:"), 0,
                       "the method is added to the attached class, not its superclass")
    }

    // MARK: When attach happens

    func testAttachingAfterTheDelegateIsSetAffectsTheExistingDelegate() {
        let delegateClass = freshClass("PFAppDelegate")
        register("PFLogModule")
        let app = pf_app_new()!
        objects.append(app)
        pf_app_set_delegate(app, make(delegateClass))
        XCTAssertEqual(pf_app_launch(app), 1)
        XCTAssertEqual(log(), "delegate:launch")

        attach(delegateClass)
        XCTAssertEqual(pf_app_launch(app), 1)
        XCTAssertEqual(log(), "delegate:launch log:launch")
    }

    func testAttachingWhenTheDelegateIsSetHappensBeforeTheSetterRuns() {
        register("PFStateModule", "PFLogModule")
        guard let token = attachOnSetDelegate(selectors: "launch,open,terminate,active,restoration") else { return }
        let delegateClass = freshClass("PFBareDelegate")
        XCTAssertEqual(pf_modules_is_attached(delegateClass, "terminate"), 0)

        let app = pf_app_new()!
        objects.append(app)
        pf_app_set_delegate(app, make(delegateClass))
        XCTAssertEqual(pf_modules_is_attached(delegateClass, "terminate"), 1)
        // The host cached respondsToSelector: inside setDelegate: — the added methods were there.
        XCTAssertEqual(pf_app_become_active(app), 0)
        XCTAssertEqual(pf_app_launch(app), 0)
        XCTAssertEqual(pf_app_terminate(app), 0)
        XCTAssertEqual(log(), "state:active log:launch bare:terminate log:terminate")

        // Without the set-up, a bare delegate has no didBecomeActive for the host.
        XCTAssertEqual(pf_modules_token_remove(token), 1)
        XCTAssertEqual(pf_modules_token_remove(token), 0)
        XCTAssertEqual(pf_modules_is_attached(delegateClass, "terminate"), 0, "remove detaches what it attached")
        let otherClass = freshClass("PFBareDelegate")
        let other = pf_app_new()!
        objects.append(other)
        pf_app_set_delegate(other, make(otherClass))
        XCTAssertEqual(pf_modules_is_attached(otherClass, "terminate"), 0, "the setter hook is gone")
        XCTAssertEqual(pf_app_become_active(other), -1)
        XCTAssertEqual(pf_app_terminate(other), 0)
        XCTAssertEqual(log(), "bare:terminate")
    }

    func testAttachingWhenTheDelegateIsSetWithTheProtocol() {
        register("PFLogModule")
        guard let token = attachOnSetDelegate() else { return }
        let delegateClass = freshClass("PFAppDelegate")
        let app = pf_app_new()!
        objects.append(app)
        let delegate = make(delegateClass)
        pf_app_set_delegate(app, delegate)
        pf_app_set_delegate(app, delegate)     // setting it again attaches nothing twice
        XCTAssertEqual(pf_app_launch(app), 1)
        XCTAssertEqual(pf_app_open_url(app, "app:x"), 1)
        XCTAssertEqual(log(), "delegate:launch log:launch delegate:open(app:x) log:open(app:x)")

        // A class attached directly before stays attached when the token goes.
        let direct = freshClass("PFAppDelegate")
        attach(direct)
        pf_app_set_delegate(app, make(direct))
        XCTAssertEqual(pf_modules_token_remove(token), 1)
        XCTAssertEqual(pf_modules_is_attached(delegateClass, "launch"), 0)
        XCTAssertEqual(pf_modules_is_attached(direct, "launch"), 1)
    }

    func testAttachingOnASetterThatCannotTakeADelegateIsRefused() {
        var error: UnsafeMutablePointer<CChar>?
        XCTAssertNil(pf_modules_attach_on_setter("PFFakeApplication", "setWindow:", nil, &error))
        XCTAssertEqual(take(error), "1: cannot hook -[PFFakeApplication setWindow:]: Unable to find selector -[PFFakeApplication setWindow:].")
        error = nil
        XCTAssertNil(pf_modules_attach_on_setter("PFFakeApplication", "setIdleTimerDisabled:", nil, &error))
        let message = take(error) ?? ""
        XCTAssertTrue(message.hasPrefix("2: cannot hook -[PFFakeApplication setIdleTimerDisabled:]: Block signature"), message)
        // The refused setter is left as it was: calls don't go through the dispatcher.
        let app = pf_app_new()!
        objects.append(app)
        let forwarded = PEDispatchForwardedCallCount()
        XCTAssertNil(take(pf_send_void_obj(app, "setIdleTimerDisabled:", nil)))
        XCTAssertEqual(PEDispatchForwardedCallCount(), forwarded)
        error = nil
        XCTAssertNil(pf_modules_attach_on_setter("NoSuchHost", "setDelegate:", nil, &error))
        XCTAssertEqual(take(error), "1: attaching on a setter needs a host class and a setter")
    }

    // MARK: Class hierarchies

    func testASubclassInheritingTheImplementationsFansOutOnce() {
        let base = freshClass("PFAppDelegate")
        let sub = freshClass(base)
        register("PFLogModule")
        attach(sub)
        XCTAssertEqual(pf_delegate_launch(make(sub)), 1)
        XCTAssertEqual(log(), "delegate:launch log:launch")
        XCTAssertEqual(pf_delegate_launch(make(base)), 1)
        XCTAssertEqual(log(), "delegate:launch", "the superclass is not attached")
    }

    func testBaseAndSubclassBothAttachedFanOutOnceInEitherOrder() {
        for baseFirst in [true, false] {
            let base = freshClass("PFAppDelegate")
            let sub = freshClass(base)
            register("PFLogModule")
            if baseFirst { attach(base); attach(sub) } else { attach(sub); attach(base) }
            XCTAssertEqual(pf_delegate_launch(make(sub)), 1)
            XCTAssertEqual(log(), "delegate:launch log:launch", "base first: \(baseFirst)")
            XCTAssertEqual(pf_delegate_launch(make(base)), 1)
            XCTAssertEqual(log(), "delegate:launch log:launch", "base first: \(baseFirst)")
            // Detaching the subclass hands its instances to the base's attachment.
            XCTAssertEqual(pf_modules_detach(sub), 1)
            XCTAssertEqual(pf_delegate_launch(make(sub)), 1)
            XCTAssertEqual(log(), "delegate:launch log:launch")
            pf_modules_unregister_all()
        }
    }

    func testAnOverrideCallingSuperFansOutOnce() {
        // Both classes implement the method; only it is attached, so detaching restores them exactly.
        register("PFLogModule")
        attach("PFAppDelegate", selectors: "open")
        attach("PFAppDelegateOverride", selectors: "open")
        let override = make("PFAppDelegateOverride")
        XCTAssertEqual(pf_delegate_open_url(override, "app:1"), 1)
        XCTAssertEqual(log(), "override:open(app:1) delegate:open(app:1) log:open(app:1)")
        XCTAssertEqual(pf_delegate_open_url(make("PFAppDelegate"), "app:2"), 1)
        XCTAssertEqual(log(), "delegate:open(app:2) log:open(app:2)")
    }

    func testAModuleThatIsItselfAnAttachedDelegateRunsOnce() {
        let delegateClass = freshClass("PFAppDelegate")
        attach(delegateClass)
        let first = make(delegateClass), second = make(delegateClass)
        register("PFLogModule")
        XCTAssertEqual(pf_modules_register_object(second), 1)
        XCTAssertEqual(pf_modules_register_object(first), 1)
        XCTAssertEqual(pf_delegate_launch(first), 1)
        XCTAssertEqual(log(), "delegate:launch log:launch delegate:launch", "the second delegate once; the first not again")
        XCTAssertEqual(pf_delegate_launch(second), 1)
        XCTAssertEqual(log(), "delegate:launch log:launch delegate:launch")
    }

    // MARK: Attach, detach, protocols

    func testAttachingTwiceIsHarmlessAndDetachingRestoresTheDelegate() {
        let delegateClass = freshClass("PFAppDelegate")
        register("PFLogModule")
        attach(delegateClass)
        attach(delegateClass)
        attach(delegateClass, selectors: "launch,open")
        let delegate = make(delegateClass)
        XCTAssertEqual(pf_delegate_launch(delegate), 1)
        XCTAssertEqual(log(), "delegate:launch log:launch")

        XCTAssertEqual(pf_modules_detach(delegateClass), 1)
        XCTAssertEqual(pf_modules_detach(delegateClass), 0)
        XCTAssertEqual(pf_modules_is_attached(delegateClass, "launch"), 0)
        XCTAssertEqual(pf_delegate_launch(delegate), 1)
        XCTAssertEqual(pf_delegate_open_url(delegate, "x:y"), 0)
        XCTAssertEqual(log(), "delegate:launch delegate:open(x:y)")

        attach(delegateClass, selectors: "open")
        XCTAssertEqual(pf_delegate_launch(delegate), 1)
        XCTAssertEqual(pf_delegate_open_url(delegate, "x:y"), 0)
        XCTAssertEqual(log(), "delegate:launch delegate:open(x:y) log:open(x:y)")
    }

    func testTheProtocolGivesItsOwnAndAdoptedMethodsButNotNSObjects() {
        let names = take(pf_modules_protocol_selectors("PFAppLifecycle")) ?? ""
        var expected = ["application:didFinishLaunchingWithOptions:", "application:openURL:options:",
                        "application:supportedOrientationsForWindow:", "applicationRestorationIdentifier:",
                        "applicationWillTerminate:"]
        #if !os(Linux)
        expected.append("applicationDidBecomeActive:")   // GCC's runtime drops optional protocol methods
        #endif
        XCTAssertEqual(names, expected.sorted().joined(separator: ","))

        let delegateClass = freshClass("PFAppDelegate")
        XCTAssertEqual(pf_modules_register_object(recorder("r")), 1)
        attach(delegateClass)
        XCTAssertEqual(take(pf_delegate_description_log(make(delegateClass))), "", "-description is not a lifecycle method")
    }

    func testAttachRefusesBadInputWithClearErrorsAndAttachesNothing() {
        let delegateClass = freshClass("PFAppDelegate")
        XCTAssertEqual(take(pf_modules_attach_protocol("NoSuchDelegateClass")), "1: no delegate class was given")
        XCTAssertEqual(take(pf_modules_attach_named_protocol(delegateClass, "NoSuchProtocol")), "1: no lifecycle protocol was given")
        XCTAssertEqual(take(pf_modules_attach_selectors(delegateClass, nil)), "1: no lifecycle selectors were given")
        XCTAssertEqual(take(pf_modules_attach_named_protocol(delegateClass, "PFModulesOptionalOnly")),
                       "1: protocol PFModulesOptionalOnly declares no instance methods this runtime records (GCC's runtime drops optional protocol methods: list them with the selectors: variant)")

        register("PFLogModule")
        let error = take(pf_modules_attach_selectors(delegateClass, "launch,retain"))
        XCTAssertEqual(error, "2: cannot attach -[\(delegateClass) retain]: Selector retain is blacklisted.")
        XCTAssertEqual(pf_modules_is_attached(delegateClass, "launch"), 0, "all or nothing")
        XCTAssertEqual(pf_delegate_launch(make(delegateClass)), 1)
        XCTAssertEqual(log(), "delegate:launch")
    }

    // MARK: Module failures

    func testAModuleThatRaisesIsReportedAndTheOthersStillRun() {
        let delegateClass = freshClass("PFAppDelegate")
        register("PFThrowingModule", "PFLogModule")
        attach(delegateClass)
        XCTAssertEqual(pf_delegate_launch(make(delegateClass)), 1)
        XCTAssertEqual(log(), "delegate:launch error(module -[PFThrowingModule application:didFinishLaunchingWithOptions:] raised: NSInternalInconsistencyException: launch failed) log:launch")
    }

    func testAModuleClassWhoseInitRaisesIsReportedOnce() {
        let delegateClass = freshClass("PFAppDelegate")
        register("PFFailingInitModule", "PFLogModule")
        attach(delegateClass)
        let delegate = make(delegateClass)
        XCTAssertEqual(pf_delegate_launch(delegate), 1)
        // Module classes are instantiated by the fan-out, after the delegate ran.
        XCTAssertEqual(log(), "delegate:launch error(module class PFFailingInitModule raised in -init: NSInvalidArgumentException: no init) log:launch")
        XCTAssertEqual(pf_delegate_launch(delegate), 1)
        XCTAssertEqual(log(), "delegate:launch log:launch")
    }

    // MARK: Composition with hooks, JS patches and swizzles

    func testAspectsHooksComposeWithTheFanOut() {
        let delegateClass = freshClass("PFAppDelegate")
        register("PFLogModule")
        let before = pf_modules_hook(delegateClass, "open", 2, "hook:before")!   // AspectPositionBefore
        let after = pf_modules_hook(delegateClass, "open", 0, "hook:after")!     // AspectPositionAfter
        objects.append(contentsOf: [before, after])
        attach(delegateClass)
        let late = pf_modules_hook(delegateClass, "open", 0, "late:after")!
        objects.append(late)
        let delegate = make(delegateClass)

        XCTAssertEqual(pf_delegate_open_url(delegate, "app:1"), 1)
        XCTAssertEqual(log(), "hook:before delegate:open(app:1) hook:after log:open(app:1) late:after")

        XCTAssertEqual(pf_modules_hook_remove(after), 1)
        XCTAssertEqual(pf_delegate_open_url(delegate, "app:1"), 1)
        XCTAssertEqual(log(), "hook:before delegate:open(app:1) log:open(app:1) late:after")

        XCTAssertEqual(pf_modules_detach(delegateClass), 1)
        XCTAssertEqual(pf_delegate_open_url(delegate, "app:1"), 1)
        XCTAssertEqual(log(), "hook:before delegate:open(app:1) late:after", "detaching leaves the hooks")

        attach(delegateClass)
        XCTAssertEqual(pf_modules_hook_remove(before), 1)
        XCTAssertEqual(pf_modules_hook_remove(late), 1)
        XCTAssertEqual(pf_delegate_open_url(delegate, "app:1"), 1)
        XCTAssertEqual(log(), "delegate:open(app:1) log:open(app:1)", "removing the hooks leaves the fan-out")
    }

    func testAnInsteadHookReplacesTheDelegateButNotTheModules() {
        let delegateClass = freshClass("PFAppDelegate")
        register("PFLogModule", "PFDeepLinkModule")
        attach(delegateClass)
        let instead = pf_modules_hook(delegateClass, "open", 1, "instead")!      // AspectPositionInstead
        objects.append(instead)
        let delegate = make(delegateClass)
        XCTAssertEqual(pf_delegate_open_url(delegate, "app:1"), 0, "the hook's NO replaces the delegate's YES")
        XCTAssertEqual(log(), "instead log:open(app:1) deeplink:open(app:1)")
        XCTAssertEqual(pf_delegate_open_url(delegate, "deep:1"), 1)
        XCTAssertEqual(log(), "instead log:open(deep:1) deeplink:open(deep:1)")
    }

    func testAJSPatchOfTheDelegateIsWhatRunsBeforeTheModules() throws {
        let delegateClass = freshClass("PFAppDelegate")
        register("PFLogModule")
        attach(delegateClass)
        let delegate = make(delegateClass)
        let script = uniqueScriptName()
        addTeardownBlock { try? PatchEngine.revert(script) }
        try PatchEngine.evaluate(jsToString + """
        defineClass('\(delegateClass)', {
          application_openURL_options: function(app, url, options) {
            require('PFModuleLog').append('js:open(' + S(url) + ')');
            return S(url).indexOf('js:') == 0;
          }
        })
        """, name: script)

        XCTAssertEqual(pf_delegate_open_url(delegate, "js:1"), 1)
        XCTAssertEqual(log(), "js:open(js:1) log:open(js:1)")
        XCTAssertEqual(pf_delegate_open_url(delegate, "app:1"), 0, "the patch's NO, the module's NO")
        XCTAssertEqual(log(), "js:open(app:1) log:open(app:1)")

        try PatchEngine.revert(script)
        XCTAssertEqual(pf_delegate_open_url(delegate, "app:1"), 1)
        XCTAssertEqual(log(), "delegate:open(app:1) log:open(app:1)", "reverting the patch leaves the fan-out")
    }

    func testAJSPatchAppliedBeforeAttachingAndOneOnAModuleBothCompose() throws {
        let delegateClass = freshClass("PFAppDelegate")
        try apply(jsToString + """
        defineClass('\(delegateClass)', {
          application_didFinishLaunchingWithOptions: function(app, options) {
            require('PFModuleLog').append('js:launch');
            return self.ORIGapplication_didFinishLaunchingWithOptions(app, options);
          }
        });
        defineClass('PFDeepLinkModule', {
          application_openURL_options: function(app, url, options) {
            require('PFModuleLog').append('js-deeplink:open(' + S(url) + ')');
            return true;
          }
        })
        """)
        register("PFLogModule", "PFDeepLinkModule")
        attach(delegateClass)
        let delegate = make(delegateClass)
        XCTAssertEqual(pf_delegate_launch(delegate), 1)
        XCTAssertEqual(log(), "js:launch delegate:launch log:launch")
        XCTAssertEqual(pf_delegate_open_url(delegate, "web:1"), 1, "the patched module says YES")
        XCTAssertEqual(log(), "delegate:open(web:1) log:open(web:1) js-deeplink:open(web:1)")
    }

    func testASwizzleOfTheDelegateRunsInsideTheDelegatePart() {
        let delegateClass = freshClass("PFAppDelegate")
        register("PFLogModule")
        attach(delegateClass)
        let swizzle = pf_modules_swizzle_open_url(delegateClass, "sw")!
        objects.append(swizzle)
        let delegate = make(delegateClass)
        XCTAssertEqual(pf_delegate_open_url(delegate, "app:1"), 1)
        XCTAssertEqual(log(), "sw:in delegate:open(app:1) sw:out log:open(app:1)")
        XCTAssertEqual(pf_modules_swizzle_remove(swizzle), 1)
        XCTAssertEqual(pf_delegate_open_url(delegate, "app:1"), 1)
        XCTAssertEqual(log(), "delegate:open(app:1) log:open(app:1)")
    }

    /// A hook, a JS patch calling the original, a swizzle and the fan-out on one selector, taken
    /// away in every order: each step leaves exactly the remaining layers, each running once.
    func testHookPatchSwizzleAndFanOutRemovedInEveryOrder() throws {
        let layers = ["hook", "patch", "swizzle", "fanout"]
        for order in permutations(layers) {
            pf_modules_unregister_all()
            let delegateClass = freshClass("PFAppDelegate")
            register("PFLogModule")
            attach(delegateClass)
            let swizzle = pf_modules_swizzle_open_url(delegateClass, "sw")!
            let hook = pf_modules_hook(delegateClass, "open", 2, "hk")!
            objects.append(contentsOf: [swizzle, hook])
            let script = uniqueScriptName()
            addTeardownBlock { try? PatchEngine.revert(script) }
            try PatchEngine.evaluate(jsToString + """
            defineClass('\(delegateClass)', {
              application_openURL_options: function(app, url, options) {
                require('PFModuleLog').append('js');
                return self.ORIGapplication_openURL_options(app, url, options);
              }
            })
            """, name: script)
            let delegate = make(delegateClass)
            var remaining = Set(layers)
            func expected() -> String {
                var parts: [String] = []
                if remaining.contains("hook") { parts.append("hk") }
                if remaining.contains("patch") { parts.append("js") }
                if remaining.contains("swizzle") { parts.append("sw:in") }
                parts.append("delegate:open(app:1)")
                if remaining.contains("swizzle") { parts.append("sw:out") }
                if remaining.contains("fanout") { parts.append("log:open(app:1)") }
                return parts.joined(separator: " ")
            }
            _ = log()
            XCTAssertEqual(pf_delegate_open_url(delegate, "app:1"), 1)
            XCTAssertEqual(log(), expected(), "all layers, order \(order)")
            for layer in order {
                switch layer {
                case "hook": XCTAssertEqual(pf_modules_hook_remove(hook), 1)
                case "patch": try PatchEngine.revert(script)
                case "swizzle": XCTAssertEqual(pf_modules_swizzle_remove(swizzle), 1)
                default: XCTAssertEqual(pf_modules_detach(delegateClass), 1)
                }
                remaining.remove(layer)
                XCTAssertEqual(pf_delegate_open_url(delegate, "app:1"), 1, "after removing \(layer), order \(order)")
                XCTAssertEqual(log(), expected(), "after removing \(layer), order \(order)")
            }
        }
    }

    /// The same composition when the slots use libffi closures instead of the runtime's forwarding.
    func testTheClosureRouteGivesTheSameResults() throws {
        let previous = PEGetDefaultRoute()
        PESetDefaultRoute(PERouteClosure)
        defer { PESetDefaultRoute(previous) }
        let delegateClass = freshClass("PFAppDelegate")
        register("PFLogModule", "PFDeepLinkModule", "PFStateModule")
        attach(delegateClass)
        let hook = pf_modules_hook(delegateClass, "open", 2, "hk")!
        let swizzle = pf_modules_swizzle_open_url(delegateClass, "sw")!
        objects.append(contentsOf: [hook, swizzle])
        try apply(jsToString + """
        defineClass('\(delegateClass)', {
          application_openURL_options: function(app, url, options) {
            require('PFModuleLog').append('js');
            return self.ORIGapplication_openURL_options(app, url, options);
          }
        })
        """)
        let delegate = make(delegateClass)
        let forwarded = PEDispatchForwardedCallCount()
        XCTAssertEqual(pf_delegate_open_url(delegate, "deep:1"), 1)
        XCTAssertEqual(PEDispatchForwardedCallCount(), forwarded, "no call went through forwarding")
        XCTAssertEqual(log(), "hk js sw:in delegate:open(deep:1) sw:out log:open(deep:1) deeplink:open(deep:1)")
        XCTAssertEqual(pf_delegate_orientations(delegate, "side"), 8)
        XCTAssertEqual(take(pf_delegate_restoration(delegate)), "\"state\"")
        XCTAssertEqual(pf_delegate_launch(delegate), 1)
        XCTAssertEqual(log(), "delegate:orientations(side) deeplink:orientations(side) state:restoration delegate:launch log:launch")
    }

    // MARK: Threads

    func testConcurrentRegistrationWhileLifecycleCallsRun() {
        let delegateClass = freshClass("PFAppDelegate")
        attach(delegateClass)
        let delegate = make(delegateClass)
        let count = 120
        let recorders = (0..<count).map { recorder("r\($0)") }
        let lock = NSLock()
        var refused = 0, raised = 0
        DispatchQueue.concurrentPerform(iterations: count) { i in
            let accepted = pf_modules_register_object(recorders[i]) == 1
            let result = pf_delegate_terminate(delegate)
            lock.lock()
            if !accepted { refused += 1 }
            if result != 0 { raised += 1 }
            lock.unlock()
        }
        XCTAssertEqual(refused, 0)
        XCTAssertEqual(raised, 0)
        let names = (take(pf_modules_registered_names()) ?? "").split(separator: ",").map(String.init)
        XCTAssertEqual(Set(names), Set((0..<count).map { "r\($0)" }))
        XCTAssertEqual(names.count, count)

        _ = log()
        XCTAssertEqual(pf_delegate_terminate(delegate), 0)
        let entries = log().split(separator: " ").map(String.init)
        XCTAssertEqual(entries.first, "delegate:terminate")
        XCTAssertEqual(entries.dropFirst().sorted(), (0..<count).map { "r\($0):terminate" }.sorted(),
                       "every module once")
        XCTAssertEqual(Array(entries.dropFirst()), names.map { "\($0):terminate" }, "in registration order")

        // The same object registered from two threads at once is registered once.
        let shared = recorder("shared")
        var accepted = 0
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let ok = pf_modules_register_object(shared) == 1
            lock.lock(); if ok { accepted += 1 }; lock.unlock()
        }
        XCTAssertEqual(accepted, 1)

        DispatchQueue.concurrentPerform(iterations: count) { i in
            if i % 2 == 0 { _ = pf_modules_unregister_object(recorders[i]) }
            _ = pf_delegate_launch(delegate)
        }
        XCTAssertEqual((take(pf_modules_registered_names()) ?? "").split(separator: ",").count, count / 2 + 1)
    }

    func testConcurrentFirstCallsMakeAModuleClassInstanceOnce() {
        let delegateClass = freshClass("PFAppDelegate")
        attach(delegateClass)
        let made = pf_modules_init_count("PFStateModule")
        register("PFStateModule")
        let delegates = (0..<16).map { _ in make(delegateClass) }
        let lock = NSLock()
        var answers: [String] = []
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let answer = take(pf_delegate_restoration(delegates[i])) ?? "?"
            lock.lock(); answers.append(answer); lock.unlock()
        }
        XCTAssertEqual(answers, Array(repeating: "\"state\"", count: 16))
        XCTAssertEqual(pf_modules_init_count("PFStateModule"), made + 1)
    }

    /// Calls `pf_delegate_terminate` on a thread of its own; the semaphore is signalled when it returns.
    private func terminateInBackground(_ delegate: UnsafeMutableRawPointer) -> DispatchSemaphore {
        let returned = DispatchSemaphore(value: 0)
        let object = UncheckedPointer(delegate)
        Thread {
            PEThreadRegister()
            _ = pf_delegate_terminate(object.pointer)
            returned.signal()
        }.start()
        return returned
    }

    func testTheRegistryAnswersWhileAModuleInitIsRunning() {
        let delegateClass = freshClass("PFAppDelegate")
        attach(delegateClass)
        let delegate = make(delegateClass)
        pf_modules_waiting_init_arm(1)
        register("PFWaitingInitModule")
        let returned = terminateInBackground(delegate)
        XCTAssertEqual(pf_modules_waiting_init_started(30), 1, "the lifecycle call made the module")
        // -init is now waiting for the release below: the registry must answer meanwhile.
        let names = take(pf_modules_registered_names())
        pf_modules_waiting_init_release()
        XCTAssertEqual(returned.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(pf_modules_waiting_init_outcome(), 1, "the registry answered before -init gave up waiting")
        XCTAssertEqual(names, "PFWaitingInitModule")
        XCTAssertEqual(log(), "delegate:terminate waiting:terminate")
    }

    func testAModuleInitWaitingForAnotherThreadsRegistryCallCompletes() {
        let delegateClass = freshClass("PFAppDelegate")
        attach(delegateClass)
        let delegate = make(delegateClass)
        pf_modules_waiting_init_arm(2)
        register("PFWaitingInitModule")
        let returned = terminateInBackground(delegate)
        XCTAssertEqual(returned.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(pf_modules_waiting_init_outcome(), 1, "the other thread's registeredModules returned while -init waited for it")
        XCTAssertEqual(log(), "delegate:terminate waiting:terminate")
    }
}

/// A pointer handed to another thread (the test keeps the object alive meanwhile).
private struct UncheckedPointer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}
