import Foundation
import Hummingbird
import TesseraCore

extension Request {
    /// Collects the body, answering 413 with code 1002 when it is larger than `limit`.
    mutating func collectBody(limit: Int) async throws -> ByteBuffer {
        do {
            return try await collectBody(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw AppError(.bodyTooLarge, .contentTooLarge, "Request body too large", detail: "The limit is \(limit) bytes")
        }
    }

    /// Decodes a JSON body, answering each kind of bad input with its own code:
    /// too large (1002), not JSON (1001), a field of the wrong type (1003), a missing field (1004).
    mutating func decodeJSON<T: Decodable>(_ type: T.Type, limit: Int) async throws -> T {
        if let contentType = headers[.contentType], !contentType.lowercased().hasPrefix("application/json") {
            throw AppError(.unsupportedMediaType, .unsupportedMediaType, "Unsupported media type", detail: "Send application/json")
        }
        let data = Data(buffer: try await collectBody(limit: limit))
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw AppError(decoding: error)
        }
    }
}

extension AppError {
    init(decoding error: DecodingError) {
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

extension Response {
    /// A JSON answer with the given status.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
