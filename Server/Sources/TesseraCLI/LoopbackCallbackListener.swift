import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP listener on 127.0.0.1 that takes requests of one method on one path: the OAuth 2.0
/// redirect (`GET <path>?…`, RFC 8252 §7.3, answered with a short page) or a UnifiedPush endpoint
/// (`POST <path>` with the message as body, answered `201 Created`). Other requests get 404.
/// Blocking POSIX sockets on a thread of its own, so no concurrency thread waits on `accept`; a
/// wait ends at its timeout (`poll`), so nothing is left blocked behind it.
final class LoopbackCallbackListener: Sendable {
    /// One request the listener took.
    struct Request: Sendable {
        /// The query parameters (the last value wins for a repeated name).
        var query: [String: String]
        /// The body (at most 64 KiB).
        var body: Data
    }

    /// The port it listens on (the one asked for, or the one the system chose for 0).
    let port: Int
    private let socket: Int32
    private let path: String
    private let method: String
    static let maxBody = 65_536

    /// Binds 127.0.0.1:`port` (0: any free port) and listens for `method` requests on `path`.
    init(port: Int, path: String, method: String = "GET") throws {
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
        self.method = method
    }

    deinit { close(socket) }

    /// Waits up to `timeout` for the OAuth redirect and returns its query parameters; nil when none came.
    func waitForCallback(timeout: Duration) async throws -> [String: String]? {
        try await next(timeout: timeout)?.query
    }

    /// Waits up to `timeout` for the next request on the path; nil when none came in time.
    func next(timeout: Duration) async throws -> Request? {
        let deadline = ContinuousClock.now + timeout
        return try await withCheckedThrowingContinuation { continuation in
            Thread { [self] in continuation.resume(with: Result { try self.take(until: deadline) }) }.start()
        }
    }

    private func take(until deadline: ContinuousClock.Instant) throws -> Request? {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            let polled = poll(&ready, 1, milliseconds)
            if polled < 0, errno == EINTR { continue }
            guard polled >= 0 else { throw CLIFailure.local("poll failed (errno \(errno))") }
            if polled == 0 { continue }
            let connection = accept(socket, nil, nil)
            guard connection >= 0 else { throw CLIFailure.local("accept failed (errno \(errno))") }
            defer { close(connection) }
            // A client that connects and sends nothing does not hold the listener for long.
            var wait = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            guard let (target, body) = Self.readRequest(connection, method: method),
                  let components = URLComponents(string: "http://127.0.0.1" + target), components.path == path
            else {
                Self.answer(connection, status: "404 Not Found", text: "Not found.")
                continue
            }
            var query: [String: String] = [:]
            for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
            if method == "GET" {
                let text = query["code"] != nil ? "Signed in. You can close this window and return to the terminal."
                    : "The sign-in did not complete. See the terminal."
                Self.answer(connection, status: "200 OK", text: text)
            } else {
                Self.answer(connection, status: "201 Created", text: nil)
            }
            return Request(query: query, body: body)
        }
    }

    /// The target and body of `<method> <target> HTTP/1.1`: the headers, then `Content-Length` bytes
    /// of body (at most ``maxBody``). Nil for another method or a request that does not parse.
    private static func readRequest(_ connection: Int32, method: String) -> (String, Data)? {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        var contentLength = 0
        while received.count < 65_536 + maxBody {
            if let end = headerEnd, received.count >= end + contentLength { break }
            let count = read(connection, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
            if headerEnd == nil, let range = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                headerEnd = range.upperBound
                let head = String(decoding: received[..<range.lowerBound], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    contentLength = min(maxBody, Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0)
                }
            }
        }
        guard let end = headerEnd else { return nil }
        let line = String(decoding: received, as: UTF8.self).split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == method else { return nil }
        return (String(parts[1]), Data(received[end..<min(received.count, end + contentLength)]))
    }

    private static func answer(_ connection: Int32, status: String, text: String?) {
        let body = text.map { "<!doctype html><meta charset=\"utf-8\"><title>tessera</title><p>\($0)</p>\n" } ?? ""
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
