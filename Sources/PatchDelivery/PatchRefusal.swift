import Foundation

/// Why a patch (or a revocation list) was not accepted. Nothing of a refused patch is evaluated.
public enum PatchRefusal: Error, Equatable, CustomStringConvertible, Sendable {
    /// The file or its manifest doesn't parse, or a field is missing, has the wrong type or an invalid value.
    case malformed(String)
    /// The manifest names a signing key the app doesn't trust.
    case unknownKey(keyID: String)
    /// A release path was handed something signed by a development key.
    case developmentKey(keyID: String)
    /// A development session was handed a patch signed by a release key: it takes development keys only.
    case releaseKeyInDevelopment(keyID: String)
    /// The signing key was trusted once but has been retired.
    case retiredKey(keyID: String)
    /// The signature doesn't match the manifest under the named key.
    case badSignature(keyID: String)
    /// A script's SHA-256 differs from the manifest's (`actual` is nil when the script is missing).
    case scriptHashMismatch(script: String, expected: String, actual: String?)
    /// The file carries a script the signed manifest doesn't list.
    case unsignedScript(String)
    /// The file carries another patch than the one the app bound it to (mix-and-match).
    case unexpectedPatchID(expected: String, found: String)
    /// The patch targets another app.
    case wrongApp(expected: String, patchAppID: String)
    /// The running app's version is outside the patch's app-version range.
    case appVersionOutOfRange(appVersion: String, range: String)
    /// The patch's expiry time has passed.
    case expired(patchID: String, at: Date)
    /// The patch's version is not higher than the one already applied (rollback or replay).
    case versionNotNewer(patchID: String, version: Int, applied: Int)
    /// The patch id (or this version of it) is on the revocation list.
    case revoked(patchID: String, version: Int)
    /// A revocation list with a lower sequence than the one already taken in (rollback).
    case revocationListRollback(sequence: Int, current: Int)
    /// The crash-loop guard disabled this patch version after launches that never succeeded.
    case disabledByCrashLoop(patchID: String, version: Int)

    /// A short stable identifier of the reason, for logs and scripts.
    public var code: String {
        switch self {
        case .malformed: return "malformed"
        case .unknownKey: return "unknown-key"
        case .developmentKey: return "development-key"
        case .releaseKeyInDevelopment: return "release-key-in-development"
        case .retiredKey: return "retired-key"
        case .badSignature: return "bad-signature"
        case .scriptHashMismatch: return "script-hash-mismatch"
        case .unsignedScript: return "unsigned-script"
        case .unexpectedPatchID: return "unexpected-patch-id"
        case .wrongApp: return "wrong-app"
        case .appVersionOutOfRange: return "app-version-out-of-range"
        case .expired: return "expired"
        case .versionNotNewer: return "version-not-newer"
        case .revoked: return "revoked"
        case .revocationListRollback: return "revocation-list-rollback"
        case .disabledByCrashLoop: return "disabled-by-crash-loop"
        }
    }

    public var description: String {
        switch self {
        case .malformed(let why):
            return "malformed patch: \(why)"
        case .unknownKey(let id):
            return "signed with unknown key '\(id)': it is not among the trusted keys"
        case .developmentKey(let id):
            return "signed with development key '\(id)': development patches never apply in a production configuration"
        case .releaseKeyInDevelopment(let id):
            return "signed with release key '\(id)': a development session applies only development-signed patches"
        case .retiredKey(let id):
            return "signed with retired key '\(id)': the key is no longer trusted"
        case .badSignature(let id):
            return "bad signature: the manifest was not signed by key '\(id)' or was altered after signing"
        case let .scriptHashMismatch(script, expected, actual?):
            return "script hash mismatch: '\(script)' has SHA-256 \(actual), the signed manifest says \(expected)"
        case let .scriptHashMismatch(script, _, nil):
            return "script hash mismatch: '\(script)' is listed in the signed manifest but missing from the file"
        case .unsignedScript(let name):
            return "unsigned script: '\(name)' is not listed in the signed manifest"
        case let .unexpectedPatchID(expected, found):
            return "unexpected patch id: the file must carry patch '\(expected)', it carries '\(found)' (mix-and-match)"
        case let .wrongApp(expected, patchAppID):
            return "wrong app: the patch targets '\(patchAppID)', this app is '\(expected)'"
        case let .appVersionOutOfRange(appVersion, range):
            return "app version \(appVersion) is outside the patch's range '\(range)'"
        case let .expired(id, at):
            return "patch '\(id)' expired at \(ISO8601DateFormatter().string(from: at))"
        case let .versionNotNewer(id, version, applied):
            return "patch '\(id)' version \(version) is not newer than the applied version \(applied) (rollback or replay)"
        case let .revoked(id, version):
            return "patch '\(id)' version \(version) is revoked"
        case let .revocationListRollback(sequence, current):
            return "revocation list #\(sequence) is older than the list #\(current) already taken in (rollback)"
        case let .disabledByCrashLoop(id, version):
            return "patch '\(id)' version \(version) was disabled by the crash-loop guard"
        }
    }
}
