import Foundation
import PatchSupport

/// JS → Objective-C sends, per receiver class and selector (`Engine.CallSite`): what a send needs
/// of a method's signature, resolved once. One table for the process (every VM's
/// `Engine.callSites`); a VM's selector numbers cache records of it (`SendSelectors`).
///
/// Records live for the process (never freed), so a reader that got one keeps a valid pointer
/// after the lock is let go; the lock guards only the dictionary.
final class CallSiteTable: @unchecked Sendable {
    private let records = LockedValue<[CallSiteKey: UnsafeMutablePointer<Engine.CallSite>]>([:])

    /// The record of `key`, if one was made.
    func record(_ key: CallSiteKey) -> UnsafeMutablePointer<Engine.CallSite>? {
        records.withLock { $0[key] }
    }

    /// The record of `key`: the one made first if another thread raced this one, else a new one
    /// holding `site`.
    func record(_ key: CallSiteKey, making site: Engine.CallSite) -> UnsafeMutablePointer<Engine.CallSite> {
        records.withLock { records in
            if let existing = records[key] { return existing }
            let record = UnsafeMutablePointer<Engine.CallSite>.allocate(capacity: 1)
            record.initialize(to: site)
            records[key] = record
            return record
        }
    }
}

struct CallSiteKey: Hashable {
    let cls: UInt
    let selector: String
}
