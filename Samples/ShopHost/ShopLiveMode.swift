import Foundation
import PatchDelivery

/// The shop kept running for the live QA loop (`--dev`): a development session applies each
/// version `patchctl dev` announces (verified against the development root with the TUF
/// updater), on the main queue, while the screens are rendered every
/// `interval` (and whenever a line arrives on standard input — a key press in a terminal);
/// a rendering that differs from the last one is printed, so each save shows up as a new screen.
enum ShopLiveMode {
    static func run(server: String, developmentRoot path: String, device: String, appVersion: String,
                    interval: TimeInterval, duration: TimeInterval?) throws -> Never {
        guard let url = URL(string: server.hasSuffix("/") ? server : server + "/"), url.host != nil else {
            throw ShopPatches.SetupError(description: "--dev '\(server)' is not a URL like http://127.0.0.1:8765/")
        }
        let root: Data
        do { root = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ShopPatches.SetupError(description: "development root \(path): \(error)")
        }
        let configuration = DevelopmentSession.Configuration(
            serverURL: url, deviceName: device, developmentRoot: root, appID: Shop.appID, appVersion: appVersion)
        let session: DevelopmentSession
        do {
            session = try DevelopmentSession(configuration: configuration, onEvent: { event in
                print("dev: \(event)")
                fflush(stdout)
            })
        } catch {
            throw ShopPatches.SetupError(description: "\(error)")
        }
        print("live: device \(device), development server \(url.absoluteString), rendering every \(Int(interval * 1000)) ms")
        fflush(stdout)
        session.start()

        var last = ""
        let render = { (force: Bool) in
            let screens = ShopScreens.render()
            guard force || screens != last else { return }
            last = screens
            let version = session.liveDevelopmentVersion.map { "dev v\($0)" } ?? "no dev version"
            print("== screens at \(Self.clock()) (\(version)) ==")
            print(screens)
            fflush(stdout)
        }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now(), repeating: interval)
        timer.setEventHandler { render(false) }
        timer.resume()
        // A key press (a line on standard input) renders at once and prints even if unchanged.
        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        input.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count <= 0 { input.cancel() } else { render(true) }
        }
        input.resume()
        for sig in [SIGINT, SIGTERM] { signal(sig, SIG_IGN) }
        let stops = [SIGINT, SIGTERM].map { sig -> DispatchSourceSignal in
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .main)
            source.setEventHandler { session.stop(); print("live: stopped"); fflush(stdout); exit(0) }
            source.resume()
            return source
        }
        if let duration {
            DispatchQueue.main.asyncAfter(deadline: .now() + duration) { session.stop(); print("live: stopped"); fflush(stdout); exit(0) }
        }
        withExtendedLifetime((timer, input, stops)) { dispatchMain() }
    }

    private static func clock() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss.SSS"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date())
    }
}
