import Foundation
import PatchDelivery
import PatchFormat

// A PatchClient's C entry points for the Objective-C API (PEPatchClient in PEPatchEngine.h).
// The client is handed out as an opaque retained pointer (PEBridgeClientRelease gives it back).

/// Events: `callback(context, kind, description)`, kind one of PatchClientEvent's case names.
public typealias BridgeEventCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>, UnsafePointer<CChar>) -> Void

/// The case name of an event, as the Objective-C side reports it.
func eventKind(_ event: PatchClientEvent) -> String {
    switch event {
    case .refreshed: return "refreshed"
    case .refreshFailed: return "refreshFailed"
    case .refused: return "refused"
    case .applied: return "applied"
    case .failed: return "failed"
    case .reverted: return "reverted"
    case .notSelected: return "notSelected"
    case .disabledByCrashLoop: return "disabledByCrashLoop"
    case .crashLoopSearchStarted: return "crashLoopSearchStarted"
    case .storedMetadataUnusable: return "storedMetadataUnusable"
    case .metadataStale: return "metadataStale"
    case .storedRootDiscarded: return "storedRootDiscarded"
    case .storageFailed: return "storageFailed"
    case .temporaryFilesRemoved: return "temporaryFilesRemoved"
    }
}

/// Makes a client from the configuration's fields (the bundled root as bytes) and applies what it
/// verified last (`applyCached`). NULL with `*message` (malloc'd) when the configuration is refused.
@_cdecl("PEBridgeClientStart")
public func bridgeClientStart(_ metadataURL: UnsafePointer<CChar>, _ targetsURL: UnsafePointer<CChar>,
                              _ bundledRoot: UnsafeRawPointer?, _ bundledRootLength: Int,
                              _ appID: UnsafePointer<CChar>, _ appVersion: UnsafePointer<CChar>,
                              _ channel: UnsafePointer<CChar>, _ deviceID: UnsafePointer<CChar>,
                              _ stateDirectory: UnsafePointer<CChar>, _ allowsInsecureHTTP: Bool, _ updateDeadline: Double,
                              _ callback: BridgeEventCallback?, _ context: UnsafeMutableRawPointer?,
                              _ message: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? {
    guard let metadata = URL(string: String(cString: metadataURL)), let targets = URL(string: String(cString: targetsURL)) else {
        message?.pointee = strdup("the metadata or targets URL does not parse")
        return nil
    }
    let root = bundledRoot.map { Data(bytes: $0, count: max(0, bundledRootLength)) } ?? Data()
    var configuration = PatchClientConfiguration(
        metadataURL: metadata, targetsURL: targets, bundledRoot: root,
        appID: String(cString: appID), appVersion: String(cString: appVersion), channel: String(cString: channel),
        device: DeviceProfile(deviceID: String(cString: deviceID)),
        stateDirectory: URL(fileURLWithPath: String(cString: stateDirectory), isDirectory: true))
    configuration.allowsInsecureHTTP = allowsInsecureHTTP
    if updateDeadline > 0 { configuration.updateDeadline = updateDeadline }
    let box = UInt(bitPattern: context)
    let onEvent: ((PatchClientEvent) -> Void)? = callback.map { callback in
        { event in callback(UnsafeMutableRawPointer(bitPattern: box), eventKind(event), event.description) }
    }
    do {
        let client = try PatchClient(configuration: configuration, onEvent: onEvent)
        client.applyCached()
        return Unmanaged.passRetained(client).toOpaque()
    } catch {
        message?.pointee = strdup("\(error)")
        return nil
    }
}

@_cdecl("PEBridgeClientUpdate")
public func bridgeClientUpdate(_ client: UnsafeMutableRawPointer) {
    Unmanaged<PatchClient>.fromOpaque(client).takeUnretainedValue().update()
}

@_cdecl("PEBridgeClientMarkLaunchSucceeded")
public func bridgeClientMarkLaunchSucceeded(_ client: UnsafeMutableRawPointer) {
    Unmanaged<PatchClient>.fromOpaque(client).takeUnretainedValue().markLaunchSucceeded()
}

@_cdecl("PEBridgeClientRelease")
public func bridgeClientRelease(_ client: UnsafeMutableRawPointer) {
    Unmanaged<PatchClient>.fromOpaque(client).release()
}
