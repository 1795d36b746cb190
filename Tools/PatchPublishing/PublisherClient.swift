import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PatchDelivery

/// What `patchctl release / promote / rollout / disable / enable / status / publish` use to talk
/// to the release service. Each operation that changes a channel fetches its current document,
/// applies the edit, signs the next document with the release key *here*, and uploads it in a
/// request signed with the publisher key. Every request ends after `timeout`; a response larger
/// than `maxResponseBytes` is cut off and refused.
public final class PublisherClient: @unchecked Sendable {
    public let baseURL: URL
    public let publisherKey: SigningKey
    public var timeout: TimeInterval = 30
    public var maxResponseBytes = 16 << 20

    public struct Failure: Error, CustomStringConvertible, Equatable {
        public var status: Int
        public var description: String
        public init(status: Int, description: String) { self.status = status; self.description = description }
    }

    public struct UploadedPatch: Decodable, Equatable {
        public var path: String
        public var digest: String
    }

    public init(baseURL: URL, publisherKey: SigningKey) {
        self.baseURL = baseURL
        self.publisherKey = publisherKey
    }

    /// Uploads a signed patch file; returns where the service serves it.
    public func uploadPatch(_ data: Data) throws -> UploadedPatch {
        let (status, body) = try request("POST", "/api/patches", body: data, signed: true)
        guard status == 201 || status == 200 else { throw Self.failure(status, body) }
        return try JSONDecoder().decode(UploadedPatch.self, from: body)
    }

    /// The channel's current signed document, nil if it has none yet.
    public func channel(_ name: String) throws -> SignedReleaseChannel? {
        let (status, body) = try request("GET", "/api/channels/\(name)", body: Data(), signed: false)
        if status == 404 { return nil }
        guard status == 200 else { throw Self.failure(status, body) }
        return try SignedReleaseChannel(fileData: body)
    }

    public func putChannel(_ signed: SignedReleaseChannel) throws {
        let (status, body) = try request("PUT", "/api/channels/\(signed.channel.channel)", body: signed.fileData(), signed: true)
        guard status == 200 else { throw Self.failure(status, body) }
    }

    /// Fetches the channel, applies `edit`, signs with `releaseKey`, uploads; returns the new document.
    @discardableResult
    public func edit(channel name: String, appID: String, _ edit: ChannelEdit, releaseKey: SigningKey, now: Date = Date()) throws -> SignedReleaseChannel {
        let current = try channel(name)
        if let current {
            // Verify what we are about to extend: the service must not slip in releases we never signed.
            try PatchVerifier(trustStore: TrustStore(keys: [releaseKey.trustedKey])).verify(releaseChannelFile: current.fileData())
        }
        let next = try edit.apply(to: current?.channel, appID: appID, channel: name, now: now)
        let signed = try PatchSigner(key: releaseKey).sign(next)
        try putChannel(signed)
        return signed
    }

    /// Uploads a signed revocation list (from `patchctl revoke`); devices take it in from `/revocations.json`.
    public func putRevocationList(_ data: Data) throws {
        let (status, body) = try request("PUT", "/api/revocations", body: data, signed: true)
        guard status == 200 else { throw Self.failure(status, body) }
    }

    /// The service's revocation list, nil if it has none.
    public func revocationList() throws -> Data? {
        let (status, body) = try request("GET", "/revocations.json", body: Data(), signed: false)
        if status == 404 { return nil }
        guard status == 200 else { throw Self.failure(status, body) }
        return body
    }

    public func status() throws -> [ChannelStatus] {
        let (status, body) = try request("GET", "/api/status", body: Data(), signed: false)
        guard status == 200 else { throw Self.failure(status, body) }
        return try JSONDecoder().decode([ChannelStatus].self, from: body)
    }

    /// Every channel document and patch file the service holds, for `StaticTree`.
    public func snapshot(channels names: [String]) throws -> (channels: [SignedReleaseChannel], patches: [String: Data]) {
        var channels: [SignedReleaseChannel] = []
        var patches: [String: Data] = [:]
        for name in names {
            guard let c = try channel(name) else { continue }
            channels.append(c)
            for release in c.channel.releases where patches[release.file] == nil {
                try ReleaseChannel.Release.checkFile(release.file)
                let (status, body) = try request("GET", "/" + release.file, body: Data(), signed: false)
                guard status == 200 else { throw Self.failure(status, body) }
                patches[release.file] = body
            }
        }
        return (channels, patches)
    }

    // MARK: - HTTP

    static func failure(_ status: Int, _ body: Data) -> Failure {
        let text = String(decoding: body.prefix(2000), as: UTF8.self)
        return Failure(status: status, description: "service answered \(status): \(text)")
    }

    /// One request, synchronously, bounded in time and response size.
    public func request(_ method: String, _ path: String, body: Data, signed: Bool) throws -> (Int, Data) {
        let url = URL(string: path, relativeTo: baseURL)!.absoluteURL
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        if !body.isEmpty || method != "GET" { request.httpBody = body }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if signed {
            for (name, value) in try PublisherSignature.headers(method: method, path: url.path, body: body, key: publisherKey) {
                request.setValue(value, forHTTPHeaderField: name)
            }
        }
        let reader = BoundedReader(limit: maxResponseBytes)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        task.resume()
        if reader.done.wait(timeout: .now() + timeout + 1) == .timedOut {
            task.cancel()
            throw Failure(status: 0, description: "\(method) \(url.absoluteString): no answer within \(Int(timeout)) s")
        }
        return try reader.result(url)
    }

    private final class BoundedReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        let limit: Int
        let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var data = Data()
        private var status = 0
        private var error: String?

        init(limit: Int) { self.limit = limit }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
            lock.withLock { status = (response as? HTTPURLResponse)?.statusCode ?? 0 }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive chunk: Data) {
            let over: Bool = lock.withLock {
                data += chunk
                if data.count > limit { error = "response larger than \(limit) bytes"; return true }
                return false
            }
            if over { dataTask.cancel() }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            lock.withLock { if self.error == nil, let error { self.error = error.localizedDescription } }
            done.signal()
        }

        func result(_ url: URL) throws -> (Int, Data) {
            try lock.withLock {
                if let error { throw Failure(status: status, description: "\(url.absoluteString): \(error)") }
                return (status, data)
            }
        }
    }
}
