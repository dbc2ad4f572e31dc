import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-request HTTP listener on 127.0.0.1 for an OAuth 2.0 redirect (RFC 8252 §7.3): it answers
/// the first `GET <path>?…` with a short page and hands back the query; other requests get 404.
/// Blocking POSIX sockets on a thread of its own, so no concurrency thread waits on `accept`.
final class LoopbackCallbackListener: Sendable {
    /// The port it listens on (the one asked for, or the one the system chose for 0).
    let port: Int
    private let socket: Int32
    private let path: String

    /// Binds 127.0.0.1:`port` (0: any free port) and listens.
    init(port: Int, path: String) throws {
        #if canImport(Glibc)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw CLIFailure.local("cannot open a socket (errno \(errno))") }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            close(fd)
            throw CLIFailure.local("cannot listen on 127.0.0.1:\(port) (errno \(errno))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.socket = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.path = path
    }

    deinit { close(socket) }

    /// Waits for the callback and returns its query parameters (the last value wins for a repeated name).
    func waitForCallback() async throws -> [String: String] {
        try await withCheckedThrowingContinuation { continuation in
            Thread { [self] in continuation.resume(with: Result { try self.acceptCallback() }) }.start()
        }
    }

    private func acceptCallback() throws -> [String: String] {
        while true {
            let connection = accept(socket, nil, nil)
            guard connection >= 0 else { throw CLIFailure.local("accept failed (errno \(errno))") }
            defer { close(connection) }
            guard let target = Self.requestTarget(connection), let components = URLComponents(string: "http://127.0.0.1" + target),
                  components.path == path
            else {
                Self.answer(connection, status: "404 Not Found", text: "Not found.")
                continue
            }
            var query: [String: String] = [:]
            for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
            let text = query["code"] != nil ? "Signed in. You can close this window and return to the terminal."
                : "The sign-in did not complete. See the terminal."
            Self.answer(connection, status: "200 OK", text: text)
            return query
        }
    }

    /// The request line's target of `GET <target> HTTP/1.1`, read up to the end of the headers.
    private static func requestTarget(_ connection: Int32) -> String? {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 65_536 {
            let count = read(connection, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
            if String(decoding: received, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let line = String(decoding: received, as: UTF8.self).split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET" else { return nil }
        return String(parts[1])
    }

    private static func answer(_ connection: Int32, status: String, text: String) {
        let body = "<!doctype html><meta charset=\"utf-8\"><title>tessera rp oidc-login</title><p>\(text)</p>\n"
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n" + body
        let bytes = Array(response.utf8)
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            sent += written
        }
    }
}
