import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import TesseraCore

extension Request {
    /// Collects the body, answering 413 with code 1002 when it is larger than `limit` (whether it
    /// was announced by Content-Length or streamed in chunks) and 400 with code 1009 when its
    /// framing is broken (malformed chunked encoding).
    public mutating func collectBody(limit: Int) async throws -> ByteBuffer {
        do {
            return try await collectBody(upTo: limit)
        } catch {
            throw AppError(transport: error, bodyLimit: limit) ?? error
        }
    }

    /// Decodes a JSON body, answering each kind of bad input with its own code:
    /// too large (1002), not JSON (1001), a field of the wrong type (1003), a missing field (1004),
    /// a string holding U+0000 (1005).
    public mutating func decodeJSON<T: Decodable>(_ type: T.Type, limit: Int) async throws -> T {
        try AppError.decodeJSON(T.self, from: try await jsonBody(limit: limit))
    }

    /// The same for a type that a flat object of strings can give without `JSONDecoder` (see ``FlatJSONReader``).
    public mutating func decodeJSON<T: FlatJSONDecodable>(_ type: T.Type, limit: Int) async throws -> T {
        let data = try await jsonBody(limit: limit)
        if let members = FlatJSONReader.strings(data), let value = T(flatStrings: members) { return value }
        return try AppError.decodeJSON(T.self, from: data)
    }

    private mutating func jsonBody(limit: Int) async throws -> Data {
        if let contentType = headers.value(.contentType), !contentType.hasPrefix(ignoringASCIICase: "application/json") {
            throw AppError.unsupportedMediaType(detail: "Send application/json")
        }
        return Data(buffer: try await collectBody(limit: limit))
    }
}

extension AppError {
    /// Decodes a JSON document, turning every way it can be wrong into its problem (see
    /// ``Request/decodeJSON(_:limit:)``).

    public static func decodeJSON<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let value: T
        do {
            value = try SharedJSON.decoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw AppError(decoding: error)
        }
        try TextCheck.checkJSON(data)
        return value
    }
}

/// The process's JSON encoder and decoder, rather than one made per use: answers, request bodies,
/// the outbox's sealed payloads and the server's calls to its nodes. Their options never change, and
/// encoding and decoding are thread-safe.
public enum SharedJSON {
    /// Sorted keys, slashes not escaped.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    /// Default options.
    public static let decoder = JSONDecoder()
}

extension Response {
    /// A JSON answer with the given status.
    public static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        json(bytes: try SharedJSON.encoder.encode(value), status: status)
    }

    /// A JSON answer of these bytes (the one place that sets its content type).
    static func json(bytes: some Sequence<UInt8>, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: jsonHeaders, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// Made once: building the fields from a literal for every answer was about 0.3 % of an introspection.
    private static let jsonHeaders: HTTPFields = [.contentType: "application/json; charset=utf-8"]
}
