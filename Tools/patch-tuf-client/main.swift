// The TUF conformance suite's client under test (its CLIENT-CLI.md protocol: init, refresh,
// download) over exactly PatchUpdater's code: this file only parses arguments and maps
// outcomes to exit codes.
import Foundation
import PatchUpdater

struct Arguments {
    var metadataDir: String?
    var metadataURL: String?
    var targetNames: [String] = []
    var targetDir: String?
    var targetBaseURL: String?
    var command: String?
    var operands: [String] = []

    init(_ list: [String]) throws {
        var i = 0
        func value() throws -> String {
            i += 1
            guard i < list.count else { throw UsageError("\(list[i - 1]) needs a value") }
            return list[i]
        }
        while i < list.count {
            switch list[i] {
            case "--metadata-dir": metadataDir = try value()
            case "--metadata-url": metadataURL = try value()
            case "--target-name": targetNames.append(try value())
            case "--target-dir": targetDir = try value()
            case "--target-base-url": targetBaseURL = try value()
            case "-v", "--verbose": break
            default:
                if command == nil { command = list[i] } else { operands.append(list[i]) }
            }
            i += 1
        }
    }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ text: String) { description = text }
}

func required(_ value: String?, _ name: String) throws -> String {
    guard let value else { throw UsageError("\(name) is required") }
    return value
}

func configuration(_ args: Arguments) throws -> UpdaterConfiguration {
    let directory = URL(fileURLWithPath: try required(args.metadataDir, "--metadata-dir"), isDirectory: true)
    guard let metadataURL = URL(string: try required(args.metadataURL, "--metadata-url")) else {
        throw UsageError("--metadata-url is not a URL")
    }
    var config = UpdaterConfiguration(metadataDirectory: directory, metadataBaseURL: metadataURL)
    if let base = args.targetBaseURL {
        guard let url = URL(string: base) else { throw UsageError("--target-base-url is not a URL") }
        config.targetBaseURL = url
    }
    return config
}

func run(_ args: Arguments) async throws {
    switch args.command {
    case "init":
        guard args.operands.count == 1 else { throw UsageError("init takes the trusted root file") }
        let data = try Data(contentsOf: URL(fileURLWithPath: args.operands[0]))
        let directory = URL(fileURLWithPath: try required(args.metadataDir, "--metadata-dir"), isDirectory: true)
        try Updater.bootstrap(rootData: data, metadataDirectory: directory)
    case "refresh":
        try await Updater(configuration: configuration(args)).refresh()
    case "download":
        guard !args.targetNames.isEmpty else { throw UsageError("--target-name is required") }
        let targetDir = URL(fileURLWithPath: try required(args.targetDir, "--target-dir"), isDirectory: true)
        let updater = Updater(configuration: try configuration(args))
        try await updater.refresh()
        for name in args.targetNames {
            guard let target = try await updater.targetInfo(for: name) else {
                throw UsageError("target \(name) is not in the repository")
            }
            if updater.cachedTarget(target, in: targetDir) == nil {
                try await updater.download(target, to: targetDir)
            }
            print("patch-tuf-client: \(name) from role \(target.role)")
        }
    default:
        throw UsageError("usage: patch-tuf-client --metadata-dir DIR [--metadata-url URL] (init ROOT | refresh | download)")
    }
}

do {
    try await run(try Arguments(Array(CommandLine.arguments.dropFirst())))
    exit(0)
} catch {
    FileHandle.standardError.write(Data("patch-tuf-client: \(error)\n".utf8))
    exit(1)
}
