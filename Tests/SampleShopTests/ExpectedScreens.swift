/// What the shop's screens show, as shipped and with each sample patch script: written out line
/// by line, so a test compares the whole text a user would see.
enum ExpectedScreens {
    /// The fixes the sample patch scripts make, by script name.
    enum Fix: String, CaseIterable {
        case total = "total.js"
        case productName = "product-name.js"
        case giftWrap = "gift-wrap.js"
        case deepLink = "deep-link.js"
    }

    static let asShipped = screens(with: [])
    static let patched = screens(with: Set(Fix.allCases))

    static func screens(with fixes: Set<Fix>) -> String {
        let total = fixes.contains(.total) ? "$42.77" : "$38.37"
        var lines = ["-- catalog --"]
        if fixes.contains(.productName) {
            lines += [
                "MUG-01  Coffee mug          $12.00",
                "TEE-02  T-shirt             $20.00",
                "GIFT-50 Item GIFT-50        $50.00",
                "PEN-03  Fountain pen        $35.00",
            ]
        } else {
            lines.append("!! screen crashed: NSInvalidArgumentException: Tried to add nil value for key 'title' to dictionary")
        }
        lines += [
            "-- checkout --",
            "2 x Coffee mug              $24.00",
            "1 x T-shirt                 $20.00",
            "Subtotal                    $44.00",
            "Coupon SPRING10 (10%)       -$4.40",
            "Tax 8%                       $3.17",
            "Total                       \(total)",
        ]
        if fixes.contains(.giftWrap) {
            lines.append("Gift wrap? (3 items)        +$4.50")
        }
        lines += [
            "-- deep links --",
            "shop://cart",
            "  Cart: 3 items               \(total)",
            "shop://product/TEE-02",
        ]
        lines += fixes.contains(.deepLink) ? ["  T-shirt                     $20.00", "  [Add to cart]"] : ["  (nothing opened)"]
        return lines.joined(separator: "\n")
    }
}
