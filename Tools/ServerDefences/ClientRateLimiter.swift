import Foundation
import NIOCore
import PatchSupport

/// Requests per client address, as token buckets: each address may send `burst` requests at once,
/// then `perSecond` on average. An IPv6 client counts by its /64 (one subscriber's prefix, which
/// it can fill with addresses at will). Bounded in memory: at most `maxClients` addresses are
/// tracked; when the table is full, addresses whose buckets have refilled are forgotten first,
/// and if none has, the table starts over (everyone gets a fresh burst, which only lets an
/// attacker with that many addresses do what those addresses could anyway).
public final class ClientRateLimiter: @unchecked Sendable {
    public let perSecond: Double
    public let burst: Double
    public let maxClients: Int
    private let buckets = LockedValue<[String: Bucket]>([:])

    private struct Bucket {
        var tokens: Double
        var updated: NIODeadline
    }

    public init(perSecond: Double, burst: Int, maxClients: Int = 100_000) {
        self.perSecond = max(0, perSecond)
        self.burst = Double(max(1, burst))
        self.maxClients = max(1, maxClients)
    }

    /// Takes one request from `address`'s bucket; false if it's empty (answer 429).
    public func allow(_ address: SocketAddress?, now: NIODeadline = .now()) -> Bool {
        let key = Self.key(address)
        return buckets.withLock { table in
            var bucket = table[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = Double((now - bucket.updated).nanoseconds) / 1e9
            bucket.tokens = min(burst, bucket.tokens + max(0, elapsed) * perSecond)
            bucket.updated = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            if table[key] == nil && table.count >= maxClients { forgetRefilled(now, in: &table) }
            table[key] = bucket
            return allowed
        }
    }

    /// Seconds until `address` may send again (for Retry-After), at least 1.
    public var retryAfterSeconds: Int { perSecond > 0 ? max(1, Int((1 / perSecond).rounded(.up))) : 3600 }

    private func forgetRefilled(_ now: NIODeadline, in table: inout [String: Bucket]) {
        table = table.filter { _, bucket in
            bucket.tokens + Double((now - bucket.updated).nanoseconds) / 1e9 * perSecond < burst
        }
        if table.count >= maxClients { table = [:] }
    }

    /// The address a client is counted by: IPv4 as is, IPv6 by its first 64 bits.
    static func key(_ address: SocketAddress?) -> String {
        switch address {
        case .v4(let v4)?:
            return v4.host
        case .v6(let v6)?:
            var raw = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &raw) { Array($0.prefix(8)) }
            // An IPv4-mapped address (::ffff:a.b.c.d) counts as that IPv4 address.
            if bytes.allSatisfy({ $0 == 0 }) { return v6.host }
            return bytes.map { String(format: "%02x", $0) }.joined() + "::/64"
        default:
            return "-"
        }
    }
}
