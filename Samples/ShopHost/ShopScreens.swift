import Foundation
import ShopKit

/// Shows every screen of the shop once, in the order a user would visit them.
enum ShopScreens {
    static let deepLinks = ["shop://cart", "shop://product/TEE-02"]

    static func show(title: String) {
        print("== \(title) ==")
        print(render())
        fflush(stdout)
    }

    /// Every screen once, as the lines a user would see (without a title).
    static func render() -> String {
        var lines: [String] = []
        sk_show_catalog()
        takeDisplay(into: &lines)
        sk_show_checkout()
        takeDisplay(into: &lines)
        lines.append("-- deep links --")
        for link in deepLinks {
            lines.append(link)
            let handled = ShopRoutes.open(URL(string: link)!)
            takeDisplay(into: &lines, indent: "  ")
            if !handled { lines.append("  (nothing opened)") }
        }
        return lines.joined(separator: "\n")
    }

    /// What the screens showed since the last call.
    private static func takeDisplay(into lines: inout [String], indent: String = "") {
        guard let text = sk_take_display() else { return }
        defer { free(text) }
        for line in String(cString: text).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            lines.append(indent + line)
        }
    }
}
