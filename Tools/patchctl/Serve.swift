import ArgumentParser
import Dispatch
import Foundation
import PatchDevServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PatchCtl {
    /// Serves a directory of patches over HTTP on loopback, for QA.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a directory of patch files over HTTP on loopback (for QA).",
            discussion: """
                Serves every file in DIR (patch files, the revocation list) with ETags and 304 Not Modified, \
                logs each request as 'METHOD /path STATUS' on standard output, and runs until interrupted \
                (SIGINT or SIGTERM), then stops cleanly. Plain HTTP: apps must opt in with allowsInsecureHTTP. \
                Safe to leave running on a shared network: GET and HEAD only, nothing outside DIR (symlinks \
                included) and no dotfiles, request heads capped at 8 KB and 10 s, idle connections closed \
                after 30 s, at most 256 connections.
                """)

        @Argument(help: ArgumentHelp("Directory to serve.", valueName: "DIR"))
        var directory: String

        @Option(name: .long, help: "Port to listen on; 0 picks a free one (printed, and written to --port-file).")
        var port: UInt16 = 8080

        @Option(name: .long, help: "IPv4 address to listen on.")
        var host: String = "127.0.0.1"

        @Option(name: .customLong("port-file"), help: ArgumentHelp("Write the bound port to this file once listening.", valueName: "FILE"))
        var portFile: String?

        func run() throws {
            let stopSignals = CommandSupport.StopSignals()

            let server = PatchServer(directory: URL(fileURLWithPath: directory), host: host, port: port)
            let bound: UInt16
            do { bound = try server.start() } catch {
                throw CommandFailure("\(error)")
            }
            print("serving \(directory) on http://\(host):\(bound)/ (Ctrl-C to stop)")
            fflush(stdout)
            if let portFile {
                do { try Data("\(bound)\n".utf8).write(to: URL(fileURLWithPath: portFile), options: .atomic) } catch {
                    server.stop()
                    throw CommandFailure("cannot write --port-file \(portFile): \(error)")
                }
            }
            stopSignals.waitForStop()
            server.stop()
            print("stopped")
            fflush(stdout)
        }
    }
}
