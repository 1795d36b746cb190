import Foundation
import XCTest
import CPatchEngine
import PatchRuntime

/// JavaScriptCore's private symbol names (CPatchEngine) follow the runtime core's registry: left out
/// of the binary exactly when the core's are (an App Store build, `PATCHENGINE_NO_PRIVATE_API=1`),
/// and looked up through the core's switches.
final class PrivateSymbolNameTests: XCTestCase {
    private var javaScriptCoreSymbols: [PEJSCPrivateSymbol] {
        (0..<PEJSCPrivateSymbolCount.rawValue).map { PEJSCPrivateSymbol(rawValue: $0) }
    }

    /// Broken if Package.swift left `PE_NO_PRIVATE_API` off the engine's C target: an App Store
    /// build would then carry JavaScriptCore's private names although the core's are gone.
    func testNamesAreLeftOutExactlyWhenTheCoreLeavesItsOut() {
        let removed = PEPrivateSymbolsRemoved()
        for symbol in javaScriptCoreSymbols {
            let name = String(cString: PEJSCPrivateSymbolName(symbol))
            XCTAssertEqual(name.isEmpty, removed, "symbol \(symbol.rawValue): \"\(name)\" in a build \(removed ? "without" : "with") private symbols")
        }
        let isaMask = String(cString: PEPrivateSymbolName(PEPrivateSymbolObjCIsaClassMask))
        XCTAssertEqual(isaMask.isEmpty, removed)
        XCTAssertEqual(String(cString: PEJSCPrivateSymbolName(PEJSCPrivateSymbolCount)), "", "out of range")
    }

    /// The lookup is the core's: WebKitGTK exports JSLock, found unless the build or the run
    /// leaves private symbols out.
    func testLookUpGoesThroughTheCoresSwitches() {
        let address = PEJSCPrivateSymbolAddress(PEJSCPrivateSymbolJSLock)
        if PEPrivateSymbolsRemoved() || runsWithoutPrivateSymbols {
            XCTAssertNil(address)
        } else {
            #if os(Linux)
            XCTAssertNotNil(address, "JSLock not found in the process")
            #endif
        }
        XCTAssertNil(PEJSCPrivateSymbolAddress(PEJSCPrivateSymbolCount))
    }
}
