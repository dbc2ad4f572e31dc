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
            throw AppError(.unsupportedMediaType, .unsupportedMediaType, "Unsupported media type", detail: "Send application/json")
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

    /// The problem for an error raised while a request was read rather than by Tessera's own
    /// code: a body over the limit (413, 1002; `NIOTooManyBytesError` for a chunked body,
    /// `HTTPError` 413 for one with Content-Length) or HTTP that cannot be parsed (400, 1009).
    /// `nil` for anything else.
    public init?(transport error: any Error, bodyLimit: Int) {
        switch error {
        case is NIOTooManyBytesError:
            self = .bodyTooLarge(limit: bodyLimit)
        case let error as HTTPError where error.status == .contentTooLarge:
            self = .bodyTooLarge(limit: bodyLimit)
        case is HTTPParserError, is ByteToMessageDecoderError:
            self = .malformedHTTP
        default:
            return nil
        }
    }

    /// 413, 1002: the body is larger than `limit` bytes.
    public static func bodyTooLarge(limit: Int) -> AppError {
        AppError(.bodyTooLarge, .contentTooLarge, "Request body too large", detail: "The limit is \(limit) bytes")
    }

    /// HTTP that cannot be parsed: a broken request line, header or chunked framing.
    public static let malformedHTTP = AppError(.badRequest, .badRequest, "Malformed HTTP request", detail: "The request is not valid HTTP/1.1")

    /// The problem for a JSON document that does not decode: wrong type (1003), missing (1004), not allowed (1005), not JSON (1001).
    public init(decoding error: DecodingError) {
        func path(_ codingPath: [any CodingKey], _ key: (any CodingKey)? = nil) -> String {
            (codingPath + (key.map { [$0] } ?? [])).map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(_, let context):
            self = AppError(
                .fieldWrongType, .badRequest, "A field has the wrong type", detail: context.debugDescription,
                field: path(context.codingPath)
            )
        case .keyNotFound(let key, let context):
            self = AppError(
                .fieldMissing, .badRequest, "A required field is missing", detail: "\(path(context.codingPath, key)) is required",
                field: path(context.codingPath, key)
            )
        case .valueNotFound(_, let context):
            self = AppError(
                .fieldMissing, .badRequest, "A required field is missing", detail: "\(path(context.codingPath)) must not be null",
                field: path(context.codingPath)
            )
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            // A value of the right JSON type that the type refuses (for example an unknown enum case).
            self = AppError(
                .fieldInvalid, .badRequest, "A field has a value that is not allowed", detail: context.debugDescription,
                field: path(context.codingPath)
            )
        default:
            self = AppError(.malformedJSON, .badRequest, "The body is not valid JSON")
        }
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
