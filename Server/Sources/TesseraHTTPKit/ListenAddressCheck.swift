import Foundation
import NIOCore
import NIOPosix

/// Checks that a listen address can be bound, before anything is created for a server that could
/// not start (`tessera serve` and `tessera node` call it first). It binds and closes a socket
/// the way Hummingbird does (`SO_REUSEADDR`); another process can still take the port between the
/// check and the real bind, and then the server fails with the same message, after start-up.
public enum ListenAddressCheck {
    /// Throws ``ConfigurationError`` naming `host:port` when it cannot be bound.
    public static func check(host: String, port: Int) async throws {
        do {
            try await probe(host: host, port: port).close()
        } catch {
            throw failure(host: host, port: port, error)
        }
    }

    /// Binds `host:port` as the server will. The probe listens for a moment: it must never accept.
    /// A client that connected in that moment (a health check during a restart) was accepted into
    /// a channel nobody served or closed, and waited forever; now it waits in the kernel's queue
    /// and is reset when the probe closes.
    static func probe(host: String, port: Int) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelInitializer { $0.close() }
            .bind(host: host, port: port).get()
    }

    /// The message for a failed bind: `cannot listen on host:port: <reason>`.
    public static func failure(host: String, port: Int, _ error: any Error) -> ConfigurationError {
        let reason: String
        if let io = error as? IOError, io.errnoCode == EADDRINUSE {
            reason = "the address is already in use (another server runs there?)"
        } else if let io = error as? IOError, io.errnoCode == EACCES {
            reason = "permission denied (ports below 1024 need privileges)"
        } else {
            reason = "\(error)"
        }
        return ConfigurationError("cannot listen on \(host.contains(":") ? "[\(host)]" : host):\(port): \(reason)")
    }
}
