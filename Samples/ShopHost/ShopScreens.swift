import Foundation
import ShopKit

/// Shows every screen of the shop once, in the order a user would visit them.
enum ShopScreens {
    static let deepLinks = ["shop://cart", "shop://product/TEE-02"]

    static func show(title: String) {
        print("== \(title) ==")
        sk_show_catalog()
        printDisplay()
        sk_show_checkout()
        printDisplay()
        print("-- deep links --")
        for link in deepLinks {
            print(link)
            let handled = ShopRoutes.open(URL(string: link)!)
            printDisplay(indent: "  ")
            if !handled { print("  (nothing opened)") }
        }
        fflush(stdout)
    }

    /// Prints what the screens showed since the last call.
    private static func printDisplay(indent: String = "") {
        guard let text = sk_take_display() else { return }
        defer { free(text) }
        for line in String(cString: text).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            print(indent + line)
        }
    }
}
