import AsyncHTTPClient
import Foundation
import NIOCore
import Tessera

/// The SDK's transport on async-http-client: what a Linux app passes to
/// ``Tessera/TesseraClient/init(configuration:keyStore:onTotalLog:transport:)``.
///
/// It keeps two clients of its own rather than `HTTPClient.shared`, which keeps at most eight
/// connections per host for everything. A progress stream holds its connection until its channel
/// ends, and only a call ends a channel: in a process that follows many channels at once (many devices
/// in one program: a load generator, tests) calls would wait behind streams for a connection, for
/// good. So calls and streams get a pool each, of up to 64 connections per host.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// How long a call may take, connection included (streams are not bound by it).
    public let timeout: Duration

    /// A transport whose calls give up after `timeout`.
    public init(timeout: Duration = .seconds(30)) {
        self.timeout = timeout
    }

    private static let calls = makeClient()
    private static let streams = makeClient()

    private static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Sends one request and collects its body (at most 4 MiB).
    public func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let seconds = timeout.components.seconds
        let response = try await Self.calls.execute(request, timeout: .seconds(seconds))
        let buffer = try await response.body.collect(upTo: 4 << 20)
        return HTTPAnswer(status: Int(response.status.code), body: Data(buffer.readableBytesView))
    }

    /// A streamed GET, its body split into lines as they arrive (for at most an hour).
    public func lines(url: URL, headers: [String: String]) async throws -> (status: Int, lines: AsyncThrowingStream<String, any Error>) {
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

#if os(Linux)
extension TesseraClient {
    /// Creates a client that talks HTTP through an ``AsyncHTTPClientTransport`` honouring the
    /// configuration's timeout: on Linux, the same call as on Apple platforms (where the SDK brings
    /// URLSession itself).
    /// - Parameters:
    ///   - configuration: Server URL, client key and bundle identifier.
    ///   - keyStore: Where device keys and state are kept; nil for a `FileKeyStore` in the platform's
    ///     data directory, so the state and the session survive a relaunch.
    ///   - onTotalLog: Optional hook receiving every log line the SDK produces.
    public convenience init(configuration: Configuration, keyStore: (any DeviceKeyStore)? = nil, onTotalLog: LogHandler? = nil) {
        self.init(
            configuration: configuration, keyStore: keyStore, onTotalLog: onTotalLog,
            transport: AsyncHTTPClientTransport(timeout: configuration.timeout)
        )
    }
}
#endif
