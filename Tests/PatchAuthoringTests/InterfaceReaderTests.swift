import Foundation
import PatchAuthoring
import XCTest

/// `patchctl interface`'s reader on real headers: the shop's, and one with properties,
/// categories and protocols.
final class InterfaceReaderTests: XCTestCase {
    func testShopHeadersGiveTheShopsClassesWithTypedMethods() throws {
        let interface = try ShopInterface.get()
        let cart = try XCTUnwrap(interface.classes["SKCart"])
        XCTAssertTrue(cart.isAppClass)
        XCTAssertEqual(cart.superclass, "NSObject")
        let add = try XCTUnwrap(cart.methods.first { $0.selector == "addProduct:quantity:" })
        XCTAssertFalse(add.isClassMethod)
        XCTAssertEqual(add.returnType, "void")
        XCTAssertEqual(add.argumentTypes, ["SKProduct *", "NSInteger"])
        let sample = try XCTUnwrap(cart.methods.first { $0.selector == "sampleCart" })
        XCTAssertTrue(sample.isClassMethod)
        XCTAssertEqual(try XCTUnwrap(interface.classes["SKProduct"]).methods.first { $0.selector == "priceCents" }?.returnType, "NSInteger")
        // Foundation's classes are there (calls to them are checked) but are not the app's.
        let object = try XCTUnwrap(interface.classes["NSObject"])
        XCTAssertFalse(object.isAppClass)
        XCTAssertNotNil(interface.method("description", isClassMethod: false, in: "SKCart"), "inherited from NSObject")
        XCTAssertNotNil(interface.method("stringWithFormat:", isClassMethod: true, in: "NSString"))
        // Every class the shop's headers declare (SKMoney.h and SKLayout.h declare C functions), and no other, is the app's.
        let appClasses = Set(interface.classes.values.filter(\.isAppClass).map(\.name))
        XCTAssertEqual(appClasses, ["SKCart", "SKCartLine", "SKCartScreen", "SKCatalog", "SKCatalogScreen",
                                    "SKCheckoutScreen", "SKDisplay", "SKProduct", "SKProductScreen"])
    }

    func testPropertiesCategoriesAndProtocols() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("iface-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let header = dir.appendingPathComponent("Widget.h")
        try """
            #import <Foundation/Foundation.h>
            @protocol WDelegate <NSObject>
            - (void)widget:(id)widget didChange:(NSInteger)value;
            @optional
            - (BOOL)widgetShouldReset:(id)widget;
            @end
            @interface Widget : NSObject <WDelegate>
            @property (nonatomic, copy) NSString *title;
            @property (nonatomic, readonly) NSInteger count;
            @property (nonatomic, getter=isEnabled) BOOL enabled;
            - (double)scaleBy:(double)factor;
            @end
            @interface Widget (Extras)
            + (Widget *)widgetNamed:(NSString *)name;
            @end
            """.write(to: header, atomically: true, encoding: .utf8)
        let interface = try ClangInterfaceReader().read(headers: [header.path])
        let widget = try XCTUnwrap(interface.classes["Widget"])
        XCTAssertTrue(widget.isAppClass)
        XCTAssertEqual(widget.protocols, ["WDelegate"])
        XCTAssertEqual(Set(widget.properties.map(\.name)), ["title", "count", "enabled"])
        let selectors = interface.selectors(isClassMethod: false, in: "Widget")
        for s in ["title", "setTitle:", "count", "isEnabled", "setEnabled:", "scaleBy:", "widget:didChange:", "widgetShouldReset:"] {
            XCTAssertTrue(selectors.contains(s), s)
        }
        XCTAssertFalse(selectors.contains("setCount:"), "readonly")
        XCTAssertFalse(selectors.contains("enabled"), "the getter is isEnabled")
        XCTAssertEqual(interface.method("scaleBy:", isClassMethod: false, in: "Widget")?.argumentTypes, ["double"])
        XCTAssertNotNil(interface.method("widgetNamed:", isClassMethod: true, in: "Widget"), "from the category")
        // The JSON round trip `patchctl check` reads.
        XCTAssertEqual(try ObjCInterface(json: interface.jsonData()), interface)
    }

    func testHeadersClangCannotParseAreAClearError() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("iface-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let header = dir.appendingPathComponent("Broken.h")
        try "@interface Broken : NSObject\n- (void)x:(UnknownType *)y;\n@end\n".write(to: header, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ClangInterfaceReader().read(headers: [header.path])) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("clang could not parse the headers"), text)
            XCTAssertTrue(text.contains("Broken.h:"), text)
        }
    }
}
