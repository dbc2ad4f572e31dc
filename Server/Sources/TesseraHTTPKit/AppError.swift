import Foundation
import Hummingbird
import TesseraCore

/// An error answer: an RFC 9457 problem with a stable ``ErrorCode``.
///
/// Built by the factories of the error table (``ErrorCatalog``): `throw AppError.otpExpired()`,
/// `AppError.invalidField("name", "name is too long")`. The code fixes the status and the title;
/// what the call site knows goes into `detail`.
public struct AppError: Error, Sendable, CustomStringConvertible {
    public let code: ErrorCode
    public let status: HTTPResponse.Status
    public let title: String
    public var detail: String?
    public var field: String?
    public var remainingAttempts: Int?
    public var retryAfter: Int?

    /// Spells out a status and a title: only the error table (``ErrorCatalog``) builds errors this
    /// way; everything else calls its factories.
    init(
        _ code: ErrorCode, _ status: HTTPResponse.Status, _ title: String, detail: String? = nil, field: String? = nil,
        remainingAttempts: Int? = nil, retryAfter: Int? = nil
    ) {
        self.code = code
        self.status = status
        self.title = title
        self.detail = detail
        self.field = field
        self.remainingAttempts = remainingAttempts
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code) \(title)\(detail.map { ": \($0)" } ?? "")" }

    /// The problem document for this error.
    public func problem(requestId: String?) -> Problem {
        Problem(
            code: code, status: Int(status.code), title: title, detail: detail, field: field,
            remainingAttempts: remainingAttempts, retryAfter: retryAfter, requestId: requestId
        )
    }

    /// The problem document as JSON bytes.
    public func problemBody(requestId: String?) -> ByteBuffer {
        ByteBuffer(bytes: (try? SharedJSON.encoder.encode(problem(requestId: requestId))) ?? Data())
    }

    /// The problem as an HTTP answer (`application/problem+json`, `Retry-After` when set).
    public func response(requestId: String?) -> Response {
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: problemBody(requestId: requestId)))
    }
}

extension AppError {
    /// Refuses (1005, naming the field) the first value longer than its limit; absent values pass.
    public static func checkLengths(_ fields: [(name: String, value: String?, limit: Int)]) throws {
        for field in fields where (field.value?.count ?? 0) > field.limit {
            throw invalidField(field.name, "\(field.name) is longer than \(field.limit) characters")
        }
    }
}
