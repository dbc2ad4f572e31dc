import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(AsyncHTTPClient)
import AsyncHTTPClient
import NIOCore
#endif

/// A raw HTTP answer.
struct HTTPAnswer: Sendable {
    var status: Int
    var body: Data
}

/// How the SDK talks HTTP: URLSession on Apple platforms, AsyncHTTPClient on Linux
/// (FoundationNetworking cannot stream server-sent events, which later calls need).
protocol HTTPTransport: Sendable {
    func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer
}

#if canImport(AsyncHTTPClient)
struct AsyncHTTPClientTransport: HTTPTransport {
    let timeout: Duration

    func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let seconds = timeout.components.seconds
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(seconds))
        let buffer = try await response.body.collect(upTo: 4 << 20)
        return HTTPAnswer(status: Int(response.status.code), body: Data(buffer.readableBytesView))
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
}
#endif
