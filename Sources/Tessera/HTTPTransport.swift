import Foundation
// URLSession (FoundationNetworking on Linux) only where it is the transport: importing it on Linux
// would link libcurl and its two dozen libraries into every program that embeds the SDK for nothing.
#if canImport(FoundationNetworking) && (!os(Linux) || TESSERA_APPLE_SHIMS)
import FoundationNetworking
#endif
#if TESSERA_APPLE_SHIMS
import URLSessionShims  // Tools/AppleShims: URLSession.bytes(for:), which FoundationNetworking on Linux lacks
#endif

/// A raw HTTP answer: what an ``HTTPTransport`` returns for one request.
public struct HTTPAnswer: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// The whole body.
    public var body: Data

    /// An answer with this status and body.
    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// How the SDK talks HTTP. On Apple platforms the SDK brings its own (URLSession, chosen when you
/// create a ``TesseraClient`` without one). On Linux, FoundationNetworking cannot stream server-sent
/// events, so the SDK brings none: add the `TesseraAsyncHTTPClient` product of the package in
/// `Transports/` (async-http-client) and pass its `AsyncHTTPClientTransport`, or pass your own.
/// The SDK package itself depends on swift-crypto only.
public protocol HTTPTransport: Sendable {
    /// Sends one request and returns the whole answer. Throws only when no answer came (connection
    /// refused, timeout); an HTTP error status is an answer.
    func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer
    /// A streamed GET: the answer's status, then its body line by line as it arrives (server-sent
    /// events; ``LineSplitter`` splits bytes as they need). Cancelling the stream closes the request.
    func lines(url: URL, headers: [String: String]) async throws -> (status: Int, lines: AsyncThrowingStream<String, any Error>)
}

#if !os(Linux) || TESSERA_APPLE_SHIMS  // the Apple shim check (Tools/AppleShims) type-checks it on Linux
/// The transport on Apple platforms: URLSession, streaming server-sent events with `bytes(for:)`.
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
/// lines are kept (an empty line ends an event). For an ``HTTPTransport``'s
/// ``HTTPTransport/lines(url:headers:)``: feed it the body's bytes as they arrive.
public struct LineSplitter: Sendable {
    private var pending: [UInt8] = []

    /// An empty splitter.
    public init() {}

    /// Takes one byte; returns the line it completes, without its line ending.
    public mutating func feed(_ byte: UInt8) -> String? {
        guard byte == UInt8(ascii: "\n") else {
            pending.append(byte)
            return nil
        }
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        defer { pending.removeAll(keepingCapacity: true) }
        return String(decoding: pending, as: UTF8.self)
    }
}
