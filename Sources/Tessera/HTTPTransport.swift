import Foundation
// URLSession (FoundationNetworking on Linux) only where it is the transport: importing it on Linux
// would link libcurl and its two dozen libraries into every program that embeds the SDK (the
// `tessera` binary among them) for nothing.
#if canImport(FoundationNetworking) && (!os(Linux) || TESSERA_APPLE_SHIMS)
import FoundationNetworking
#endif
#if TESSERA_APPLE_SHIMS
import URLSessionShims  // Tools/AppleShims: URLSession.bytes(for:), which FoundationNetworking on Linux lacks
#endif
#if os(Linux) && !TESSERA_APPLE_SHIMS
import AsyncHTTPClient
import NIOCore
#endif

/// A raw HTTP answer.
struct HTTPAnswer: Sendable {
    var status: Int
    var body: Data
}

/// How the SDK talks HTTP: URLSession on Apple platforms, AsyncHTTPClient on Linux
/// (FoundationNetworking cannot stream server-sent events, which later calls need). Chosen by
/// platform (`#if os(Linux)`), so an Apple app gets URLSession even when a whole-package build makes
/// AsyncHTTPClient importable.
protocol HTTPTransport: Sendable {
    func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer
    /// A streamed GET: the answer's status, then its body line by line as it arrives (server-sent events).
    func lines(url: URL, headers: [String: String]) async throws -> (status: Int, lines: AsyncThrowingStream<String, any Error>)
}

#if os(Linux) && !TESSERA_APPLE_SHIMS  // the Apple shim check (Tools/AppleShims) type-checks the URLSession path on Linux
struct AsyncHTTPClientTransport: HTTPTransport {
    let timeout: Duration

    /// The SDK's own clients rather than `HTTPClient.shared`, which keeps at most eight connections per
    /// host for everything. A progress stream holds its connection until its channel ends, and only a
    /// call ends a channel: in a process that follows many channels at once (many devices in one
    /// program: a load generator, tests) calls would wait behind streams for a connection, for good.
    /// So calls and streams get a pool each, of up to 64 connections per host.
    private static let calls = makeClient()
    private static let streams = makeClient()

    private static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let seconds = timeout.components.seconds
        let response = try await Self.calls.execute(request, timeout: .seconds(seconds))
        let buffer = try await response.body.collect(upTo: 4 << 20)
        return HTTPAnswer(status: Int(response.status.code), body: Data(buffer.readableBytesView))
    }

    func lines(url: URL, headers: [String: String]) async throws -> (status: Int, lines: AsyncThrowingStream<String, any Error>) {
        var request = HTTPClientRequest(url: url.absoluteString)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await Self.streams.execute(request, deadline: .now() + .seconds(3600))
        let body = response.body
        let stream = AsyncThrowingStream<String, any Error> { continuation in
            let task = Task {
                do {
                    var splitter = LineSplitter()
                    for try await chunk in body {
                        for byte in chunk.readableBytesView {
                            if let line = splitter.feed(byte) { continuation.yield(line) }
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return (Int(response.status.code), stream)
    }
}
#else
struct URLSessionTransport: HTTPTransport {
    let session: URLSession
    let timeout: Duration

    func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = TimeInterval(timeout.components.seconds)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        return HTTPAnswer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
    }

    func lines(url: URL, headers: [String: String]) async throws -> (status: Int, lines: AsyncThrowingStream<String, any Error>) {
        var request = URLRequest(url: url)
        request.timeoutInterval = 3600
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (bytes, response) = try await session.bytes(for: request)
        let stream = AsyncThrowingStream<String, any Error> { continuation in
            let task = Task {
                do {
                    // Not `bytes.lines`: it drops empty lines, and an empty line is what ends a server-sent event.
                    var splitter = LineSplitter()
                    for try await byte in bytes {
                        if let line = splitter.feed(byte) { continuation.yield(line) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, stream)
    }
}
#endif

/// Splits a byte stream into lines as server-sent events need it: LF or CRLF ends a line, and empty
/// lines are kept (an empty line ends an event). Both transports use it.
struct LineSplitter {
    private var pending: [UInt8] = []

    /// Takes one byte; returns the line it completes, without its line ending.
    mutating func feed(_ byte: UInt8) -> String? {
        guard byte == UInt8(ascii: "\n") else {
            pending.append(byte)
            return nil
        }
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        defer { pending.removeAll(keepingCapacity: true) }
        return String(decoding: pending, as: UTF8.self)
    }
}
