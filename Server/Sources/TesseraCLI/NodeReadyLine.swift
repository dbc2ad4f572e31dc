import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one line `tessera node` prints once it listens: `ready <nodeId> <publicKey> <url>`. With
/// `--port 0` the URL carries the port the system picked; `tessera serve` reads it from the
/// embedded nodes it starts.
struct NodeReadyLine: Equatable {
    static let prefix = "ready "

    var nodeId: String
    var publicKey: String
    var url: String

    var text: String { "\(Self.prefix)\(nodeId) \(publicKey) \(url)" }

    init(nodeId: String, publicKey: String, url: String) {
        self.nodeId = nodeId
        self.publicKey = publicKey
        self.url = url
    }

    /// Parses a ready line; nil for any other line.
    init?(line: String) {
        guard line.hasPrefix(Self.prefix) else { return nil }
        let parts = line.dropFirst(Self.prefix.count).split(separator: " ").map(String.init)
        guard parts.count == 3 else { return nil }
        self.init(nodeId: parts[0], publicKey: parts[1], url: parts[2])
    }

    /// Watches standard input on a thread of its own and, when it ends (the parent closed it or
    /// died, even by SIGKILL), sends this process SIGTERM, which stops the node gracefully.
    static func stopOnStandardInputEnd() {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count == 0 || (count < 0 && errno != EINTR) { break }
            }
            kill(getpid(), SIGTERM)
        }
        thread.start()
    }
}
