/// An RFC 9457 problem details document as Tessera sends it.
///
/// `code` is the stable numeric result code (see ``ErrorCode``). Extra members that some
/// problems carry (`remainingAttempts`, `retryAfter`, `field`) are optional.
public struct Problem: Codable, Sendable, Equatable, Error {
    /// URI identifying the problem type (`https://tessera.dev/problems/<name>`).
    public var type: String
    /// Short, human-readable summary of the problem type.
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// Human-readable explanation of this occurrence.
    public var detail: String?
    /// The stable numeric code (the seeds' `rtCode`).
    public var code: Int
    /// The field that was wrong, when the problem is about one field.
    public var field: String?
    /// Tries left before a code is locked (for `otp-invalid`).
    public var remainingAttempts: Int?
    /// Seconds to wait before trying again (for rate limits).
    public var retryAfter: Int?
    /// An identifier for correlating with server logs.
    public var requestId: String?

    /// Creates a problem document.
    public init(
        code: ErrorCode, status: Int, title: String, detail: String? = nil, field: String? = nil,
        remainingAttempts: Int? = nil, retryAfter: Int? = nil, requestId: String? = nil
    ) {
        self.type = code.typeURI
        self.title = title
        self.status = status
        self.detail = detail
        self.code = code.rawValue
        self.field = field
        self.remainingAttempts = remainingAttempts
        self.retryAfter = retryAfter
        self.requestId = requestId
    }

    /// The code as an ``ErrorCode``.
    public var errorCode: ErrorCode { ErrorCode(rawValue: code) }
}
