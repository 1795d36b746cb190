import Foundation
import XCTest
import PatchRuntime
import PatchFixtures

/// A tracker instruments each collection-view delegate's class when -setDelegate: is
/// called; the delegate is a "third-party" view, and the app subclasses it. First the article's
/// naive helper, whose cycle is detected (not run into a stack overflow), then the same tracker on
/// the toolkit, which has no cycle in any order.
final class DelegateTrackerCycleTests: ToolkitTestCase {
    struct S4Family {
        let prefix: String
        var collectionView: String { prefix + "CollectionView" }
        var thirdParty: String { prefix + "ThirdPartyView" }
        var mine: String { prefix + "MyView" }
        var grand: String { prefix + "MyGrandView" }
        var other: String { prefix + "OtherView" }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var used = 0

    func s4Family(_ route: PERoute = PERouteForwarding, file: StaticString = #filePath, line: UInt = #line) throws -> S4Family {
        PESetDefaultRoute(route)
        Self.lock.lock()
        defer { Self.lock.unlock() }
        guard Self.used < 16 else {
            XCTFail("all delegate tracker families are used: add more in PFDelegateTrackerFixture.m", file: file, line: line)
            throw XCTSkip("no family left")
        }
        Self.used += 1
        return S4Family(prefix: "PFS4_\(Self.used)")
    }

    /// Sets `delegate` on a collection view and selects item "0-1"; the log of that selection.
    private func select(_ collectionView: UnsafeMutableRawPointer?, delegate: UnsafeMutableRawPointer?,
                        file: StaticString = #filePath, line: UInt = #line) -> String {
        XCTAssertNil(take(pf_s4_set_delegate(collectionView, delegate)), file: file, line: line)
        _ = log()
        XCTAssertNil(take(pf_s4_select(collectionView, "0-1")), file: file, line: line)
        return log()
    }

    private let cycle = Array(repeating: "track", count: Int(PF_S4_CYCLE_LIMIT)).joined(separator: " ")
        + " cycle(\(PF_S4_CYCLE_LIMIT))"

    // MARK: - The article's helper

    /// The seed's crash: the third-party base is tracked first, then the app's subclass (which
    /// doesn't override the delegate method). The subclass ends up with the new IMP under both
    /// selectors and calls itself: the tracking layer nests until the detector stops it, and the
    /// third-party implementation never runs. The base class still works.
    func testNaiveHelperLoopsWhenTheParentIsTrackedFirst() throws {
        let f = try s4Family()
        pf_s4_begin_naive_tracker(f.prefix)
        let collectionView = make(f.collectionView)
        let base = make(f.thirdParty), mine = make(f.mine)
        XCTAssertEqual(select(collectionView, delegate: base), "track ThirdParty(0-1)")
        XCTAssertEqual(select(collectionView, delegate: mine), cycle, "the cycle is detected")
        XCTAssertEqual(select(collectionView, delegate: base), "track ThirdParty(0-1)")
        let grand = make(f.grand)
        XCTAssertEqual(select(collectionView, delegate: grand), cycle, "a grandchild tracked later loops the same way")
    }

    /// The same helper with the other order works, which is why the bug depended on which screen
    /// the user opened first.
    func testNaiveHelperWorksWhenTheChildIsTrackedFirst() throws {
        let f = try s4Family()
        pf_s4_begin_naive_tracker(f.prefix)
        let collectionView = make(f.collectionView)
        let base = make(f.thirdParty), mine = make(f.mine)
        XCTAssertEqual(select(collectionView, delegate: mine), "track ThirdParty(0-1)")
        XCTAssertEqual(select(collectionView, delegate: base), "track ThirdParty(0-1)")
        XCTAssertEqual(select(collectionView, delegate: mine), "track ThirdParty(0-1)")
    }

    // MARK: - The tracker on the toolkit

    /// With swizzle layers, once per class: every order of tracking the base, the subclass and the
    /// grandchild. A call runs the layer of each tracked class on its way up, each once, then the
    /// third-party implementation; a sibling that was never a delegate only passes the base's layer.
    func testSwizzleTrackerHasNoCycleInAnyOrder() throws {
        for route in Self.routes {
            let f = try s4Family(route)
            let names = ["ThirdParty": f.thirdParty, "Mine": f.mine, "Grand": f.grand]
            let parents = ["ThirdParty": [String](), "Mine": ["ThirdParty"], "Grand": ["Mine", "ThirdParty"]]
            for order in permutations(["ThirdParty", "Mine", "Grand"]) {
                pf_s4_begin_safe_tracker(f.prefix, 0)
                let collectionView = make(f.collectionView)
                var tracked: [String] = []
                for level in order {
                    let object = make(names[level]!)
                    tracked.append(level)
                    let chain = ([level] + parents[level]!).filter { tracked.contains($0) }
                    let expected = chain.map { "track@\(names[$0]!)" } + ["ThirdParty(0-1)"]
                    XCTAssertEqual(select(collectionView, delegate: object), expected.joined(separator: " "),
                                   "\(route), order \(order), \(level)")
                }
                for level in order {
                    let chain = [level] + parents[level]!
                    let expected = chain.map { "track@\(names[$0]!)" } + ["ThirdParty(0-1)"]
                    XCTAssertEqual(select(collectionView, delegate: make(names[level]!)), expected.joined(separator: " "),
                                   "\(route), order \(order), all tracked, \(level)")
                }
                let sibling = make(f.other)
                _ = log()
                XCTAssertNil(take(pf_s4_did_select(sibling, "0-1")))
                XCTAssertEqual(log(), "track@\(f.thirdParty) ThirdParty(0-1)",
                               "\(route), order \(order): a sibling never set as delegate passes the base's layer only")
                XCTAssertEqual(select(collectionView, delegate: sibling),
                               "track@\(f.other) track@\(f.thirdParty) ThirdParty(0-1)", "\(route), order \(order)")
                pf_s4_end_tracker(f.prefix)
                XCTAssertEqual(select(collectionView, delegate: make(f.grand)), "ThirdParty(0-1)",
                               "\(route): every layer removed")
            }
        }
    }

    /// Once per class and superclasses (what a tracker wants): the subclass is not instrumented
    /// again when its parent was, so a selection is tracked exactly once.
    func testSwizzleTrackerOncePerHierarchyTracksOnce() throws {
        let f = try s4Family()
        pf_s4_begin_safe_tracker(f.prefix, 1)
        addTeardownBlock { pf_s4_end_tracker(f.prefix) }
        let collectionView = make(f.collectionView)
        XCTAssertEqual(select(collectionView, delegate: make(f.thirdParty)), "track@\(f.thirdParty) ThirdParty(0-1)")
        XCTAssertEqual(select(collectionView, delegate: make(f.mine)), "track@\(f.thirdParty) ThirdParty(0-1)")
        XCTAssertEqual(select(collectionView, delegate: make(f.grand)), "track@\(f.thirdParty) ThirdParty(0-1)")
        XCTAssertEqual(select(collectionView, delegate: make(f.other)), "track@\(f.thirdParty) ThirdParty(0-1)")
    }

    /// The seed's exact story: the third-party view is tracked, and only then does the app
    /// subclass it (a class registered at run time); the subclass is tracked when set as delegate.
    func testSubclassCreatedAfterTheParentWasTracked() throws {
        for route in Self.routes {
            let f = try s4Family(route)
            pf_s4_begin_safe_tracker(f.prefix, 0)
            addTeardownBlock { pf_s4_end_tracker(f.prefix) }
            let collectionView = make(f.collectionView)
            XCTAssertEqual(select(collectionView, delegate: make(f.thirdParty)), "track@\(f.thirdParty) ThirdParty(0-1)")
            let lateName = "\(f.prefix)LateView"
            XCTAssertEqual(pf_s4_make_subclass(f.thirdParty, lateName), 1)
            let late = make(lateName)
            XCTAssertEqual(select(collectionView, delegate: late), "track@\(lateName) track@\(f.thirdParty) ThirdParty(0-1)",
                           "\(route)")
            XCTAssertEqual(select(collectionView, delegate: late), "track@\(lateName) track@\(f.thirdParty) ThirdParty(0-1)",
                           "\(route): stable on the next call")
        }
    }

    /// The same tracker written with hooks (which Aspects refused for parent + child, #11 #48):
    /// one hook per class, each runs once, in any order.
    func testHookTrackerHasNoCycleInAnyOrder() throws {
        for route in Self.routes {
            let f = try s4Family(route)
            let names = ["ThirdParty": f.thirdParty, "Mine": f.mine, "Grand": f.grand]
            let parents = ["ThirdParty": [String](), "Mine": ["ThirdParty"], "Grand": ["Mine", "ThirdParty"]]
            for order in permutations(["ThirdParty", "Mine", "Grand"]) {
                pf_s4_begin_safe_tracker(f.prefix, 2)
                let collectionView = make(f.collectionView)
                var tracked: [String] = []
                for level in order {
                    tracked.append(level)
                    let chain = ([level] + parents[level]!).filter { tracked.contains($0) }
                    let expected = chain.map { "track@\(names[$0]!)" } + ["ThirdParty(0-1)"]
                    XCTAssertEqual(select(collectionView, delegate: make(names[level]!)), expected.joined(separator: " "),
                                   "\(route), order \(order), \(level)")
                }
                pf_s4_end_tracker(f.prefix)
                XCTAssertEqual(select(collectionView, delegate: make(f.grand)), "ThirdParty(0-1)", "\(route)")
            }
        }
    }
}
