import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PatchDelivery
import PatchEngine
import PatchDevServer
import HTTPTestSupport
import XCTest

/// The live QA loop end to end: the real `patchctl dev` (its real file watcher, its server on
/// loopback) and development sessions in this process, as a test app would hold them.
final class DevLoopTests: XCTestCase {
    var root: URL!
    var scripts: URL!
    var keyDirectory: URL!

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: PatchCtlTests.patchctl.path) else {
            throw PatchCtlTests.MissingExecutable(path: PatchCtlTests.patchctl.path)
        }
        root = try makeTemporaryDirectory(self)
        scripts = root.appendingPathComponent("patches")
        keyDirectory = root.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
    }

    // MARK: - Save → applied

    func testASaveIsAppliedLiveAndReportedBackWithItsLogLines() throws {
        try save("a.js", "var first = 1;\n  console.log('hello one');\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        let device = try Device(self, dev, name: "phone-1", engine: true)
        device.session.start()
        let first = try device.waitForApplied(after: nil)
        try dev.waitForLine("[phone-1] v\(first) applied")
        // console.log lines come back with where they were written.
        try dev.waitForLine(matching: #"^\[phone-1\] v\#(first) log a\.js:2:14: hello one$"#)

        try save("a.js", "console.log('hello two');\n")
        let second = try device.waitForApplied(after: first)
        XCTAssertGreaterThan(second, first)
        try dev.waitForLine(matching: #"^\[phone-1\] v\#(second) log a\.js:1:\d+: hello two$"#)
    }

    // MARK: - Errors back in the terminal

    func testASyntaxErrorComesBackWithLineAndColumnAndTheLastGoodVersionStaysLive() throws {
        try save("b.js", "var good = 1;\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        let device = try Device(self, dev, name: "tablet", engine: true)
        device.session.start()
        let good = try device.waitForApplied(after: nil)

        try save("b.js", "var good = 1;\nvar broken = ;\n")
        let line = try dev.waitForLine(matching: #"\[tablet\] v\d+ syntax error b\.js:2:\d+: "#)
        XCTAssertTrue(line.contains("b.js:2:"), line)
        try dev.waitForLine(matching: #"^lint b\.js:2:\d+: error: "#)   // patchctl dev's own check, at once
        // The report leaves before the previous version is back; the app's own event comes after.
        try device.waitFor("the failed version rolled back to v\(good)") { events in
            events.contains { if case .failed(_, _, good?) = $0 { return true } else { return false } }
        }
        XCTAssertEqual(device.session.liveDevelopmentVersion, good, "the last good version stays live")

        try save("b.js", "var good = 2;\n")
        let fixed = try device.waitForApplied(after: good)
        try dev.waitForLine("[tablet] v\(fixed) applied")
    }

    func testWithAnInterfaceEverySaveIsCheckedAgainstIt() throws {
        // The shape `patchctl interface` writes: one class with one method.
        let interface = root.appendingPathComponent("app.json")
        try Data("""
            {"classes": {"Cart": {"name": "Cart", "superclass": null, "protocols": [], "properties": [], "isAppClass": true,
              "methods": [{"selector": "totalCents", "isClassMethod": false, "returnType": "NSInteger", "argumentTypes": []}]}},
             "protocols": {}}
            """.utf8).write(to: interface)
        try save("c.js", "defineClass('Cart', {\n  totalCents: function () { return 1; }\n});\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory, arguments: ["--interface", interface.path])
        try dev.waitForLine(matching: #"^watching "#)
        try save("c.js", "defineClass('Cart', {\n  totalCent: function () { return 1; }\n});\n")
        try dev.waitForLine("check c.js:2:3: error: Cart has no method -totalCent; did you mean 'totalCents' (-totalCents)?")
    }

    func testAFirstVersionThatFailsLeavesNothingApplied() throws {
        try save("one.js", "var fine = 1;\n")
        try save("two.js", "throw new Error('not yet');\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        let device = try Device(self, dev, name: "fresh", engine: true)
        device.session.start()
        try dev.waitForLine(matching: #"^\[fresh\] v\d+ evaluation error two\.js:1:\d+: Error: not yet$"#)
        try device.waitFor("the failed event") { $0.contains { if case .failed(_, _, nil) = $0 { return true } else { return false } } }
        XCTAssertNil(device.session.liveDevelopmentVersion)
        XCTAssertEqual(device.applier.onQueue { $0.live }, [], "one.js was applied, then undone with the version")
    }

    func testARuntimeErrorRaisedLaterIsReportedWithTheScriptName() throws {
        try save("c.js", "var ok = 1;\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        let device = try Device(self, dev, name: "rt", engine: true)
        device.session.start()
        let version = try device.waitForApplied(after: nil)
        PatchEngine.errorHandler?(PatchError(kind: .runtime, message: "undefined is not a function",
                                             scriptName: "dev@\(version)/c.js", line: 7, column: 3))
        try dev.waitForLine("[rt] v\(version) runtime error c.js:7:3: undefined is not a function")
    }

    /// A method `patchctl convert` wrote that throws on the device: the console names the
    /// Objective-C line it came from (the map convert ends the script with), next to the JS position.
    func testAConvertedMethodThatThrowsIsShownAtItsObjectiveCLine() throws {
        let source = root.appendingPathComponent("DevBoom.m")
        try Data("""
            #import <Foundation/Foundation.h>

            @interface DevBoom : NSObject
            - (NSString *)label:(NSString *)name;
            - (void)missingStep;
            @end

            @implementation DevBoom
            - (NSString *)label:(NSString *)name {
                NSString *prefix = @"item ";
                if ([name length] > 3) {
                    [self missingStep];
                }
                return [prefix stringByAppendingString:name];
            }
            @end

            """.utf8).write(to: source)
        let converted = try PatchCtlTests.run(["convert", source.path, "-o", scripts.appendingPathComponent("boom.js").path])
        XCTAssertEqual(converted.status, 0, converted.err)
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        let device = try Device(self, dev, name: "qa", engine: true)
        device.session.start()
        let version = try device.waitForApplied(after: nil)
        // A native caller (NSArray) sends the patched method: `[self missingStep]` throws in JS.
        device.applier.queue.sync {
            _ = try? PatchEngine.evaluate("require('NSArray').arrayWithObject(require('DevBoom').alloc().init())"
                                          + ".makeObjectsPerformSelector_withObject('label:', 'longer');", name: "trigger.js")
        }
        // boom.js line 7 is `self.missingStep();`, from DevBoom.m line 12.
        let line = try dev.waitForLine(matching: #"^\[qa\] v\#(version) runtime error boom\.js:7:\d+ \(\S*DevBoom\.m:12\): "#)
        XCTAssertTrue(line.contains(source.path + ":12)"), line)

        // Lines added above the map make it stale: the error is shown without an Objective-C line.
        let script = try String(contentsOf: scripts.appendingPathComponent("boom.js"), encoding: .utf8)
        try save("boom.js", "var added = 1;\n" + script)
        let edited = try device.waitForApplied(after: version)
        device.applier.queue.sync {
            _ = try? PatchEngine.evaluate("require('NSArray').arrayWithObject(require('DevBoom').alloc().init())"
                                          + ".makeObjectsPerformSelector_withObject('label:', 'longer');", name: "trigger.js")
        }
        let stale = try dev.waitForLine(matching: #"^\[qa\] v\#(edited) runtime error boom\.js:8:\d+: "#)
        XCTAssertFalse(stale.contains("DevBoom.m"), stale)
    }

    func testABurstOfSavesIsPublishedOnceItSettlesAndTheLastContentWins() throws {
        try save("g.js", "var g = 0;\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        let device = try Device(self, dev, name: "burst", engine: false)
        device.session.start()
        let first = try device.waitForApplied(after: nil)
        let publishedBefore = dev.output.value.filter { $0.contains(" published (") }.count
        for i in 1...10 { try save("g.js", "var g = \(i);\n") }
        try device.waitFor("the last save applied") { _ in
            device.applier.onQueue { applier in applier.live.first.flatMap { applier.sources[$0] } } == "var g = 10;\n"
        }
        let published = dev.output.value.filter { $0.contains(" published (") }.count - publishedBefore
        XCTAssertLessThanOrEqual(published, 5, "ten saves in a burst are published once or twice (more only under heavy load), not ten times")
        XCTAssertGreaterThan(try device.waitForApplied(after: first), first)
    }

    // MARK: - What reaches the terminal is bounded and escaped

    func testReportsAreEscapedBeforePrintingAndOversizedOnesRefused() throws {
        try save("h.js", "var h = 1;\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        // A device's log line trying to forge another device's line and clear the screen.
        let mallory = try RawHTTPConnection(port: dev.port)
        let token = try XCTUnwrap(mallory.openDevStream(device: "mallory"))
        let forged = DevReport(kind: .log, version: 1, message: "evil\n[phone-1] v2 applied\u{1b}[2J")
        XCTAssertEqual(try report(dev, session: token, forged.encoded()), 204)
        let line = try dev.waitForLine("[mallory] v1 log: evil")
        XCTAssertEqual(line, #"[mallory] v1 log: evil\u{a}[phone-1] v2 applied\u{1b}[2J"#)
        XCTAssertFalse(dev.output.value.contains { $0.hasPrefix("[phone-1]") }, "no forged line")
        // Larger than a report may be: refused before it is read as one.
        let huge = Data(repeating: UInt8(ascii: "a"), count: 5000)
        XCTAssertEqual(try report(dev, session: token, huge), 413)
        // Without the token of a connected device's stream: refused, and nothing reaches the terminal.
        let claim = DevReport(kind: .applied, version: 99, message: "forged")
        XCTAssertEqual(try report(dev, session: "made-up", claim.encoded()), 403)
        mallory.close()
        usleep(300_000)
        XCTAssertEqual(try report(dev, session: token, claim.encoded()), 403, "a closed stream's token is void")
        XCTAssertFalse(dev.output.value.contains { $0.contains("v99") }, "\(dev.output.value)")
        // A device name must be a plain name.
        let badName = try RawHTTPConnection(port: dev.port)
        badName.send("GET /_dev/events?device=bad%20name%1b HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try badName.readResponse().status, 400)
    }

    func testAFloodOfLogLinesIsCutAtTheDevicesQueueAndTheTerminalIsToldHowMany() throws {
        try save("flood.js", "for (var i = 0; i < 3000; i++) { console.log('line ' + i); }\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        // The app's own log handler stays quiet (the session passes every line on to it).
        let appHandler = PatchEngine.logHandler
        PatchEngine.logHandler = { _ in }
        addTeardownBlock { PatchEngine.logHandler = appHandler }
        let device = try Device(self, dev, name: "chatty", engine: true)
        device.session.start()
        let version = try device.waitForApplied(after: nil)
        try dev.waitForLine("[chatty] v\(version) applied")
        try dev.waitForLine(matching: #"^\[chatty\] dropped: \d+ reports dropped \(queue full\)$"#)
        let logs = dev.output.value.filter { $0.hasPrefix("[chatty] v\(version) log ") }.count
        XCTAssertLessThan(logs, 3000, "not every line: the device keeps at most its queue's worth waiting")
        XCTAssertGreaterThan(logs, 0)
    }

    func testScriptsTooLargeForADeviceAreNotPublishedAndTheLastVersionStays() throws {
        try save("small.js", "var small = 1;\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        let device = try Device(self, dev, name: "bounded", engine: false)
        device.session.start()
        let first = try device.waitForApplied(after: nil)
        try save("big.js", "// " + String(repeating: "x", count: 1 << 20) + "\n")
        try dev.waitForLine(matching: #"^not published: big\.js: larger than the \d+-byte limit$"#)
        XCTAssertEqual(device.session.liveDevelopmentVersion, first)
    }

    /// A FIFO named like a script (opening one for reading waits for a writer) is refused without
    /// a read: the watcher goes on, and the version after it is removed is published.
    func testAFIFONamedLikeAScriptIsRefusedAndTheWatcherGoesOn() throws {
        try save("a.js", "var a = 1;\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        let device = try Device(self, dev, name: "fifo", engine: false)
        device.session.start()
        let first = try device.waitForApplied(after: nil)
        let fifo = scripts.appendingPathComponent("pipe.js")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        try save("a.js", "var a = 2;\n")
        try dev.waitForLine(matching: #"^not published: pipe\.js: not a regular file$"#)
        XCTAssertEqual(device.session.liveDevelopmentVersion, first)
        try FileManager.default.removeItem(at: fifo)
        try save("a.js", "var a = 3;\n")
        let next = try device.waitForApplied(after: first)
        XCTAssertGreaterThan(next, first)
    }

    /// Sends one report as a device would, on the session `token`; returns the HTTP status.
    private func report(_ dev: DevServer, session token: String, _ data: Data) throws -> Int {
        var components = URLComponents(url: dev.url.appendingPathComponent("_dev/report"), resolvingAgainstBaseURL: false)!
        let payload = data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        components.queryItems = [URLQueryItem(name: "session", value: token), URLQueryItem(name: "r", value: payload)]
        let status = LockedBox(0)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: components.url!) { _, response, _ in
            status.value = (response as? HTTPURLResponse)?.statusCode ?? -1
            done.signal()
        }.resume()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        return status.value
    }

    // MARK: - Several devices

    func testEverySaveReachesSeveralDevicesEachNamedInTheOutput() throws {
        try save("d.js", "var one = 1;\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        let devices = try ["ios-sim", "android-1", "qa-ipad"].map { try Device(self, dev, name: $0, engine: false) }
        devices.forEach { $0.session.start() }
        let first = try devices.map { try $0.waitForApplied(after: nil) }
        XCTAssertEqual(Set(first).count, 1)
        try save("d.js", "var one = 2;\n")
        for device in devices {
            let version = try device.waitForApplied(after: first[0])
            try dev.waitForLine("[\(device.name)] v\(version) applied")
        }
    }

    // MARK: - Reconnects

    func testTheDeviceReconnectsAfterTheServerRestarts() throws {
        try save("e.js", "var e = 1;\n")
        var dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        let port = dev.port
        let device = try Device(self, dev, name: "survivor", engine: false)
        device.session.start()
        let first = try device.waitForApplied(after: nil)
        dev.stop()
        try device.waitFor("the disconnect") { $0.contains { if case .disconnected = $0 { return true } else { return false } } }

        dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory, port: port)
        try dev.waitForLine("[survivor] connected", timeout: 15)
        try save("e.js", "var e = 2;\n")
        let after = try device.waitForApplied(after: first, timeout: 15)
        try dev.waitForLine("[survivor] v\(after) applied")
    }

    func testAServerThatHangsIsLeftAfterTheSilenceTimeoutAndRejoinedWhenItWakes() throws {
        try save("hang.js", "var hang = 1;\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        // Heartbeats come every 5 s; 1.5 s without a byte is long enough to call it hung here.
        let device = try Device(self, dev, name: "patient", engine: false, silenceTimeout: 1.5)
        device.session.start()
        let first = try device.waitForApplied(after: nil)
        kill(dev.process.processIdentifier, SIGSTOP)
        defer { kill(dev.process.processIdentifier, SIGCONT) }
        try device.waitFor("the hung server left", timeout: 5) { events in
            events.contains { if case .disconnected(let why) = $0 { return why.contains("no data for") } else { return false } }
        }
        kill(dev.process.processIdentifier, SIGCONT)
        try save("hang.js", "var hang = 2;\n")
        XCTAssertGreaterThan(try device.waitForApplied(after: first, timeout: 15), first)
    }

    func testARestartedAppGetsTheCurrentVersionAtOnce() throws {
        try save("f.js", "var f = 1;\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        var device = try Device(self, dev, name: "relaunch", engine: false)
        device.session.start()
        _ = try device.waitForApplied(after: nil)
        try save("f.js", "var f = 2;\n")
        let current = try device.waitForApplied(after: nil, where: { _ in true }, count: 2)
        device.session.stop()

        // A new process: a new session and an engine without the development version.
        device = try Device(self, dev, name: "relaunch", engine: false)
        device.session.start()
        XCTAssertEqual(try device.waitForApplied(after: nil), current)
        XCTAssertEqual(device.applier.onQueue { $0.live }, ["dev@\(current)/f.js"])
    }

    func testAStoppedSessionStartedAgainCatchesUpAndReportsAgain() throws {
        try save("s.js", "var s = 1;\n")
        let dev = try DevServer.start(self, scripts: scripts, keyDirectory: keyDirectory)
        let device = try Device(self, dev, name: "pausable", engine: false)
        device.session.start()
        let first = try device.waitForApplied(after: nil)
        device.session.stop()
        try dev.waitForLine("[pausable] disconnected")
        try save("s.js", "var s = 2;\n")
        // The first version may also have gone to 0 devices (published before the device came): the new one.
        let version = { (line: String) in Int(line.dropFirst().prefix { $0.isNumber }) ?? 0 }
        let published = try dev.waitForLine(matching: #"^v\d+ published \(s\.js\) to 0 devices$"#, where: { version($0) > first })
        let missed = version(published)

        device.session.start()
        XCTAssertEqual(try device.waitForApplied(after: first), missed)
        try dev.waitForLine("[pausable] v\(missed) applied")
    }

    // MARK: - Helpers

    /// Saves the way editors do: write a temporary file, rename it over the script.
    func save(_ name: String, _ text: String) throws {
        let temporary = scripts.appendingPathComponent(".\(name).tmp-\(UUID().uuidString.prefix(6))")
        try Data(text.utf8).write(to: temporary)
        guard rename(temporary.path, scripts.appendingPathComponent(name).path) == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno))
        }
    }
}

/// `patchctl dev` running as a child process; its output collected line by line.
final class DevServer {
    let process = Process()
    let port: UInt16
    let output = LockedBox<[String]>([])

    static func start(_ test: XCTestCase, scripts: URL, keyDirectory: URL, port: UInt16 = 0, arguments: [String] = []) throws -> DevServer {
        let server = try DevServer(scripts: scripts, keyDirectory: keyDirectory, requestedPort: port, arguments: arguments)
        test.addTeardownBlock { server.stop() }
        return server
    }

    private init(scripts: URL, keyDirectory: URL, requestedPort: UInt16, arguments: [String]) throws {
        let portFile = scripts.deletingLastPathComponent().appendingPathComponent("port-\(UUID().uuidString)")
        process.executableURL = PatchCtlTests.patchctl
        process.arguments = ["dev", scripts.path, "--port", String(requestedPort), "--port-file", portFile.path,
                             "--key-dir", keyDirectory.path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = self.output
        let partial = LockedBox(Data())
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else { handle.readabilityHandler = nil; return }
            var buffer = partial.value + data
            var lines: [String] = []
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                buffer = Data(buffer[buffer.index(after: newline)...])
            }
            partial.value = buffer
            if !lines.isEmpty { output.value += lines }
        }
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        var port: UInt16?
        while port == nil, Date() < deadline, process.isRunning {
            port = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { UInt16($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if port == nil { usleep(20_000) }
        }
        guard let port else {
            process.terminate()
            throw NSError(domain: "DevServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "patchctl dev did not start: \(output.value)"])
        }
        self.port = port
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(10_000) }
    }

    /// Waits (bounded) for an output line containing `text`; returns it.
    @discardableResult
    func waitForLine(_ text: String, timeout: TimeInterval = 10) throws -> String {
        try waitFor(timeout: timeout, what: "a line with '\(text)'") { $0.contains(text) }
    }

    @discardableResult
    func waitForLine(matching pattern: String, timeout: TimeInterval = 10, where accept: @escaping (String) -> Bool = { _ in true }) throws -> String {
        let regex = try NSRegularExpression(pattern: pattern)
        return try waitFor(timeout: timeout, what: "a line matching /\(pattern)/") {
            regex.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil && accept($0)
        }
    }

    private func waitFor(timeout: TimeInterval, what: String, _ matches: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let line = output.value.first(where: matches) { return line }
            usleep(10_000)
        } while Date() < deadline
        XCTFail("patchctl dev printed no \(what) within \(timeout) s; it printed:\n" + output.value.joined(separator: "\n"))
        throw NSError(domain: "DevServer", code: 2)
    }
}

/// A test app: one development session, applying on its own queue, with the real engine or a
/// recording applier (several devices in one process can't share the engine's script names).
final class Device {
    let name: String
    let session: DevelopmentSession
    let applier: QueuedApplier
    let events = LockedBox<[DevelopmentSession.Event]>([])

    init(_ test: XCTestCase, _ dev: DevServer, name: String, engine: Bool, silenceTimeout: TimeInterval = 15) throws {
        self.name = name
        let developmentRoot = try Data(contentsOf: URL(fileURLWithPath: dev.process.arguments![dev.process.arguments!.firstIndex(of: "--key-dir")! + 1])
            .appendingPathComponent("dev-root.json"))
        let queue = DispatchQueue(label: "device.\(name)")
        var configuration = DevelopmentSession.Configuration(
            serverURL: dev.url, deviceName: name, developmentRoot: developmentRoot,
            appID: "com.example.shop", appVersion: "1.4.0")
        configuration.queue = queue
        configuration.reconnectDelay = 0.05...0.5
        configuration.silenceTimeout = silenceTimeout
        configuration.reportsEngineOutput = engine
        applier = QueuedApplier(queue: queue, engine: engine)
        let events = self.events
        session = try DevelopmentSession(configuration: configuration, applier: applier, onEvent: { event in events.value.append(event) })
        let session = self.session, applier = self.applier
        test.addTeardownBlock {
            session.stop()
            queue.sync { session.revert() }
            _ = applier
        }
    }

    /// Waits for the `count`-th applied event with a version above `after`; returns its version.
    func waitForApplied(after: Int?, timeout: TimeInterval = 10, where accept: (Int) -> Bool = { _ in true }, count: Int = 1) throws -> Int {
        var found: Int?
        try waitFor("version \(count) applied after \(after.map(String.init) ?? "none")", timeout: timeout) { events in
            let versions = events.compactMap { event -> Int? in
                if case .applied(let v) = event, v > (after ?? 0), accept(v) { return v } else { return nil }
            }
            found = versions.count >= count ? versions[count - 1] : nil
            return found != nil
        }
        return found!
    }

    func waitFor(_ what: String, timeout: TimeInterval = 10, _ condition: ([DevelopmentSession.Event]) -> Bool) throws {
        try waitForEvents(events, "device \(name): \(what)", timeout: timeout, condition)
    }
}

/// Waits (bounded) until a session's recorded events meet `condition`; fails the test after `timeout`.
func waitForEvents(_ events: LockedBox<[DevelopmentSession.Event]>, _ what: String, timeout: TimeInterval,
                   _ condition: ([DevelopmentSession.Event]) -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if condition(events.value) { return }
        usleep(10_000)
    } while Date() < deadline
    XCTFail("no \(what) within \(timeout) s; events: \(events.value)")
    throw NSError(domain: "DevelopmentSessionEvents", code: 1)
}

/// The engine, or a recorder, used on the device's queue only.
final class QueuedApplier: PatchApplying {
    let queue: DispatchQueue
    let engine: Bool
    private let recorder = RecordingApplier()
    private let real = EnginePatchApplier()

    init(queue: DispatchQueue, engine: Bool) {
        self.queue = queue
        self.engine = engine
    }

    func apply(script: String, name: String, bundle: [String: String]) throws {
        if engine { try real.apply(script: script, name: name, bundle: bundle) }
        try recorder.apply(script: script, name: name, bundle: bundle)
    }

    func revert(name: String) throws {
        if engine { try real.revert(name: name) }
        try recorder.revert(name: name)
    }

    func onQueue<T>(_ read: (RecordingApplier) -> T) -> T { queue.sync { read(recorder) } }
}
