import AsyncHTTPClient
import Foundation
import NIOCore

/// A `text/event-stream` response read as it arrives (AsyncHTTPClient streams it), one event at a time.
package struct EventStreamClient {
    /// One server-sent event: its `event:` name and its `data:`.
    package struct Event: Equatable, CustomStringConvertible {
        package var name: String
        package var data: String

        package init(name: String, data: String) {
            self.name = name
            self.data = data
        }
        package var description: String { "\(name) \(data)" }
    }

    package let status: Int
    package let contentType: String?
    package let cacheControl: String?
    private var chunks: HTTPClientResponse.Body.AsyncIterator
    private var pending = [UInt8]()
    private var ended = false

    /// Opens `url` with `Accept: text/event-stream` and `headers`.
    package init(_ http: HTTPClient, url: String, headers: [(String, String)] = []) async throws {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "text/event-stream")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await http.execute(request, timeout: .seconds(300))
        status = Int(response.status.code)
        contentType = response.headers.first(name: "Content-Type")
        cacheControl = response.headers.first(name: "Cache-Control")
        chunks = response.body.makeAsyncIterator()
    }

    /// The next event; nil once the server ended the stream. Comments (`: …`) are skipped.
    package mutating func next() async throws -> Event? {
        var name = "message", data: [String] = []
        while true {
            guard let line = try await nextLine() else { return nil }
            if line.isEmpty {
                if !data.isEmpty { return Event(name: name, data: data.joined(separator: "\n")) }
                name = "message"
                continue
            }
            if line.hasPrefix(":") { continue }
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            let field = String(line[..<colon])
            var value = colon == line.endIndex ? "" : String(line[line.index(after: colon)...])
            if value.hasPrefix(" ") { value.removeFirst() }
            if field == "event" { name = value } else if field == "data" { data.append(value) }
        }
    }

    /// Every remaining event, until the server ends the stream.
    package mutating func rest() async throws -> [Event] {
        var events: [Event] = []
        while let event = try await next() { events.append(event) }
        return events
    }

    /// The whole body (for an answer that is not a stream).
    package mutating func body() async throws -> String {
        while let chunk = try await chunks.next() { pending.append(contentsOf: chunk.readableBytesView) }
        defer { pending = [] }
        return String(decoding: pending, as: UTF8.self)
    }

    private mutating func nextLine() async throws -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard !ended, let chunk = try await chunks.next() else {
                ended = true
                return nil
            }
            pending.append(contentsOf: chunk.readableBytesView)
        }
    }
}
