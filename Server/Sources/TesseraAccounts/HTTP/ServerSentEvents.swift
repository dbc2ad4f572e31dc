import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A `text/event-stream` answer (server-sent events), written in the request's own task: an opening
/// comment, then for each element of a sequence `event: <name>` and `data: <the element as JSON with
/// sorted keys>` (written by ``JSONObjectWriter`` when the element is ``JSONObjectWritable``); the stream
/// ends when the sequence does. Not stored by caches, not buffered by a
/// reverse proxy. Serves the relying-party API's channel stream and the hosted sign-in page's stream.
package enum ServerSentEvents {
    /// For the elements that are not ``JSONObjectWritable``: sorted keys (one encoder for every stream;
    /// encoding does not change it).
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// - Parameters:
    ///   - comment: The first line (`: <comment>`), sent at once so that the client sees the stream open.
    ///   - events: What to send; each element's `name` is its `event:` field.
    ///   - id: An element's `id:` field, if it has one (an EventSource resumes after it).
    ///   - alongside: Runs beside the stream (a deadline that feeds it) and is cancelled when it ends.
    package static func response<Events: AsyncSequence & Sendable>(
        comment: String, _ events: Events, name: @escaping @Sendable (Events.Element) -> String,
        id: (@Sendable (Events.Element) -> String?)? = nil, alongside: (@Sendable () async throws -> Void)? = nil
    ) -> Response where Events.Element: Encodable {
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": \(comment)\n\n"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                if let alongside { group.addTask { try await alongside() } }
                for try await event in events {
                    let bytes = try (event as? any JSONObjectWritable)?.jsonBytes ?? Array(Self.encoder.encode(event))
                    let data = String(decoding: bytes, as: UTF8.self)
                    let field = id?(event).map { "id: \($0)\n" } ?? ""
                    try await writer.write(ByteBuffer(string: "\(field)event: \(name(event))\ndata: \(data)\n\n"))
                }
                group.cancelAll()
            }
            try await writer.finish(nil)
        }
        var headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]
        // Tells a reverse proxy (nginx) not to buffer the stream.
        if let accelBuffering = HTTPField.Name("X-Accel-Buffering") { headers[accelBuffering] = "no" }
        return Response(status: .ok, headers: headers, body: body)
    }
}
