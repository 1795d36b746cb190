import XCTest
import PatchEngine
import PatchRuntime
import PatchFixtures

/// What JS sees of an object whose -dealloc is running: its JS properties, taken aside when its
/// -dealloc starts and read from there until it ends, however deeply -deallocs nest (a list
/// releasing its next link from each -dealloc); and `self` in a patched method the -dealloc calls,
/// which can't be kept alive by a retain (the memory goes when the -dealloc returns).
final class DeallocStateTests: PatchTestCase {
    func testSelfKeptByAPatchedMethodThatItsDeallocCalledReadsNilOnceTheDeallocReturns() throws {
        let name = uniqueScriptName()
        try PatchEngine.evaluate("""
        var kept = [];
        defineClass('PFChainLink', {
          value: function() { kept.push(self); return kept.length * 10 + (self.description() ? 1 : 0); }
        });
        """, name: name)
        defer { try? PatchEngine.revert(name) }
        var values = [Int32](repeating: 0, count: 8)
        _ = pf_chain_seen(&values, 8)
        release(pf_chain_make(3))
        XCTAssertEqual(pf_chain_seen(&values, 8), 3)
        XCTAssertEqual(Array(values.prefix(3)), [11, 21, 31], "each -dealloc called the patch, self usable inside it")
        XCTAssertEqual(try PatchEngine.evaluate("kept.map(function (o) { return o.description() ? 'live' : 'nil'; }).join()", name: name) as? String,
                       "nil,nil,nil", "kept after their -deallocs returned: nil, not freed memory")
        PatchEngine.collectGarbage()        // the boxes' finalizers release nothing
        XCTAssertEqual(try PatchEngine.evaluate("kept.length", name: name) as? Double, 3)
    }

    /// In a child process: the links go at a collection, and one link's box kept by a stale
    /// conservative root stops the whole chain there. After the other suites a root out of this
    /// thread's scrub's reach kept one (most likely the stack of an idle thread that once entered
    /// the VM: JavaScriptCore scans those too).
    func testEachLinkOfALongListReadsItsOwnPropertiesInItsNestedDealloc() throws {
        if runsWithoutPrivateSymbols {
            throw XCTSkip("the links go at a collection, and without JSSynchronousGarbageCollectForDebugging JSGarbageCollect only hints one")
        }
        try runCheckedInChildProcess("testEachLinkOfALongListReadsItsOwnPropertiesInItsNestedDealloc") { try longListCase() }
    }

    private func longListCase() throws {
        let name = uniqueScriptName()
        try PatchEngine.evaluate("""
        var tagged = 0;
        defineClass('PFChainLink', ['tag'], {
          value: function() {
            var tag = self.tag();
            if (tag) return tag;
            tagged += 1;
            self.setTag(tagged);
            return 0;
          }
        });
        """, name: name)
        defer { try? PatchEngine.revert(name) }
        var values = [Int32](repeating: 0, count: 1024)
        _ = pf_chain_seen(&values, 1024)
        let count = 300     // deeper than the stack's inline entries, so it grows (and shrinks) twice
        let head = pf_chain_make(Int32(count))
        for index in 0..<count { XCTAssertEqual(pf_chain_value(pf_chain_link(head, Int32(index))), 0) }
        XCTAssertEqual(pf_chain_value(pf_chain_link(head, 5)), 6, "tags set")
        release(head)
        var seen: [Int32] = []
        for _ in 0..<20 where seen.count < count {
            pf_scrub_stack()    // the 300 calls above left boxes' addresses in the stack below us
            PatchEngine.collectGarbage()
            let n = Int(pf_chain_seen(&values, 1024))
            seen += values.prefix(min(n, 1024))
        }
        XCTAssertEqual(seen, (1...count).map { Int32($0) }, "each link's own tag, from the outermost -dealloc in")
    }
}
