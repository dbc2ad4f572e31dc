import Foundation
import NIOCore
import NIOPosix

/// Sends bytes no HTTP client would send (chunked framing, garbage, unknown methods) to a live
/// server and reads what comes back until the server closes the connection.
package struct RawHTTP {
    package let status: Int
    package let headers: [String: String]
    package let body: String

    /// Sends `request` to 127.0.0.1:`port`, then parses the first answer.
    package static func exchange(port: Int, _ request: [UInt8]) async throws -> RawHTTP {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true)
                    )
                }
            }
        let text = try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: request))
            var received = ByteBuffer()
            for try await chunk in inbound { received.writeImmutableBuffer(chunk) }
            return String(buffer: received)
        }
        return try RawHTTP(parsing: text)
    }

    package static func exchange(port: Int, _ request: String) async throws -> RawHTTP {
        try await exchange(port: port, Array(request.utf8))
    }

    package init(parsing text: String) throws {
        guard let split = text.range(of: "\r\n\r\n") else { throw ParseError(text: text) }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        guard let statusText = lines.first?.split(separator: " ").dropFirst().first, let status = Int(statusText) else {
            throw ParseError(text: text)
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = String(text[split.upperBound...])
        if let length = headers["content-length"].flatMap(Int.init) { body = String(body.utf8.prefix(length)) ?? body }
        self.status = status
        self.headers = headers
        self.body = body
    }

    package struct ParseError: Error, CustomStringConvertible {
        package let text: String
        package var description: String { "not an HTTP answer: \(text.debugDescription)" }
    }
}
