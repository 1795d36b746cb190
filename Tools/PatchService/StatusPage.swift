import Foundation
import PatchFormat

/// The status web page: per channel, each release with its rollout, state and the counts devices
/// reported, and a chart of applied / failed / reverted per hour as inline SVG. One
/// self-contained HTML document: no scripts, no external assets (it works offline and under a
/// strict Content-Security-Policy).
struct StatusPage {
    var appID: String
    var channels: [ChannelStatus]
    /// Roles expired or expiring soon (`HostedRepository.expiries`), shown above the channels.
    var expiryWarnings: [RoleExpiry] = []
    var generated: Date

    var html: String {
        var out = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Releases · \(esc(appID))</title>
        <style>
        body{font:14px system-ui,sans-serif;margin:24px;color:#1d2330;background:#fafbfc}
        h1{font-size:20px}h2{font-size:16px;margin-top:28px}
        table{border-collapse:collapse;margin:8px 0 16px}th,td{padding:6px 12px;border-bottom:1px solid #dde1e7;text-align:right}
        th:first-child,td:first-child{text-align:left}.disabled{color:#a33}.enabled{color:#17773a}
        .bar{display:inline-block;height:8px;background:#3b6fd8;border-radius:2px;vertical-align:middle}
        .legend span{margin-right:14px}
        .warnings{border:1px solid #d98e04;background:#fff6e0;padding:8px 16px;border-radius:4px}.warnings li{color:#8a5300}
        </style></head><body>
        <h1>Releases of \(esc(appID))</h1>
        <p>Generated \(esc(ISO8601DateFormatter().string(from: generated)))</p>

        """
        if !expiryWarnings.isEmpty {
            out += "<section id=\"expiry-warnings\" class=\"warnings\"><h2>Expiry</h2><ul>\n"
            for expiry in expiryWarnings {
                guard let warning = expiry.warning else { continue }
                let advice = expiry.state == .expired ? "devices that need it take nothing from it until a newer version is published (patchctl repo renew)"
                                                      : "renew it (patchctl repo renew) and publish before devices stop on it"
                out += "<li class=\"expiry-warning\" data-role=\"\(esc(expiry.role))\">\(esc(warning)): \(advice)</li>\n"
            }
            out += "</ul></section>\n"
        }
        if channels.isEmpty { out += "<p id=\"empty\">No channel has been published yet.</p>\n" }
        for channel in channels {
            out += "<section class=\"channel\" id=\"channel-\(esc(channel.channel))\"><h2>Channel \(esc(channel.channel)) <small>version \(channel.version)\(channel.expires.map { ", expires \(esc($0))" } ?? "")</small></h2>\n"
            if let warning = channel.expiryWarning { out += "<p class=\"expiry-warning\">\(esc(warning))</p>\n" }
            out += "<table><tr><th>Release</th><th>Patch</th><th>Rollout</th><th>State</th><th>Applied</th><th>Failed</th><th>Reverted</th><th>Disabled by guard</th></tr>\n"
            for r in channel.releases.reversed() {
                let percent = String(format: "%g %%", Double(r.rollout) / 100)
                out += "<tr class=\"release\" data-release=\"\(esc(r.releaseID))\"><td>\(esc(r.releaseID))</td><td>\(esc(r.patchID)) v\(r.version)</td>"
                out += "<td class=\"rollout\"><span class=\"bar\" style=\"width:\(r.rollout / 200)px\"></span> \(percent)</td>"
                out += "<td class=\"\(esc(r.state))\">\(esc(r.state))</td><td class=\"applied\">\(r.applied)</td><td class=\"failed\">\(r.failed)</td>"
                out += "<td class=\"reverted\">\(r.reverted)</td><td class=\"disabled-by-guard\">\(r.disabledByGuard)</td></tr>\n"
            }
            out += "</table>\n"
            for r in channel.releases.reversed() where !r.timeline.isEmpty {
                out += chart(r)
            }
            out += "</section>\n"
        }
        out += "</body></html>\n"
        return out
    }

    /// Applied, failed and reverted per hour for one release, as lines on a 600×160 SVG.
    private func chart(_ r: ReleaseStatus) -> String {
        let kinds: [(String, String)] = [("applied", "#3b6fd8"), ("failed", "#c0392b"), ("reverted", "#d98e04")]
        let hours = Array(Set(r.timeline.map(\.hour))).sorted()
        let maxCount = max(1, r.timeline.filter { kinds.map(\.0).contains($0.kind) }.map(\.count).max() ?? 1)
        let width = 600.0, height = 160.0, left = 40.0, bottom = 20.0
        func x(_ i: Int) -> Double { hours.count == 1 ? left + (width - left) / 2 : left + Double(i) * (width - left - 10) / Double(hours.count - 1) }
        func y(_ n: Int) -> Double { height - bottom - Double(n) / Double(maxCount) * (height - bottom - 10) }
        var svg = "<figure><figcaption>\(esc(r.releaseID)) per hour</figcaption>"
        svg += "<svg class=\"chart\" data-release=\"\(esc(r.releaseID))\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"\(esc(r.releaseID)) events per hour\">"
        svg += "<line x1=\"\(left)\" y1=\"\(height - bottom)\" x2=\"\(width)\" y2=\"\(height - bottom)\" stroke=\"#888\"/>"
        svg += "<line x1=\"\(left)\" y1=\"10\" x2=\"\(left)\" y2=\"\(height - bottom)\" stroke=\"#888\"/>"
        svg += "<text x=\"4\" y=\"16\" font-size=\"11\">\(maxCount)</text><text x=\"4\" y=\"\(height - bottom)\" font-size=\"11\">0</text>"
        for (kind, color) in kinds {
            let points = hours.enumerated().map { i, hour in
                let n = r.timeline.first { $0.hour == hour && $0.kind == kind }?.count ?? 0
                return String(format: "%.1f,%.1f", x(i), y(n))
            }
            if points.count == 1 {
                let p = points[0].split(separator: ",")
                svg += "<circle class=\"\(kind)\" cx=\"\(p[0])\" cy=\"\(p[1])\" r=\"4\" fill=\"\(color)\"/>"
            } else {
                svg += "<polyline class=\"\(kind)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>"
            }
        }
        svg += "</svg><div class=\"legend\">" + kinds.map { "<span style=\"color:\($0.1)\">■ \($0.0)</span>" }.joined() + "</div></figure>\n"
        return svg
    }

    private func esc(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
