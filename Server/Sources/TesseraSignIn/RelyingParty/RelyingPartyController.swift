import Foundation
import Hummingbird
import TesseraCore

/// The relying party's server-to-server API (client key + secret): authentication requests with
/// long-poll, TOTP verification, and RFC 7662 introspection.
package struct RelyingPartyController<Context: TesseraContext> {
    package let auth: RelyingPartyAuthFlow
    package let totp: TOTPVerifier
    package let introspection: Introspection
    package let bodyLimit: Int

    package init(auth: RelyingPartyAuthFlow, totp: TOTPVerifier, introspection: Introspection, bodyLimit: Int) {
        self.auth = auth
        self.totp = totp
        self.introspection = introspection
        self.bodyLimit = bodyLimit
    }
    /// Longest long-poll the server holds.
    package let maxWait = 60

    package func addRoutes(to group: RouterGroup<Context>) {
        group.post("auth-requests", use: create)
        group.get("auth-requests/{requestId}", use: state)
        group.delete("auth-requests/{requestId}", use: cancel)
        group.post("totp/verify", use: verifyTOTP)
        group.post("introspect", use: introspect)
    }

    @Sendable package func create(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(RPAuthRequest.self, limit: bodyLimit)
        return try .json(try await auth.create(client: try context.requireClient(), request: body), status: .created)
    }

    @Sendable package func state(_ request: Request, context: Context) async throws -> Response {
        var wait = 0
        if let text = request.uri.queryParameters.get("wait") {
            guard let value = Int(text), (0...maxWait).contains(value) else {
                throw AppError.invalidField("wait", "wait must be 0–\(maxWait) seconds")
            }
            wait = value
        }
        let id = try context.parameters.require("requestId")
        return try .json(try await auth.state(client: try context.requireClient(), id: id, wait: .seconds(wait)))
    }

    @Sendable package func cancel(_ request: Request, context: Context) async throws -> Response {
        try await auth.cancel(client: try context.requireClient(), id: try context.parameters.require("requestId"))
        return try .json(RtResponse(rtMsg: "cancelled"))
    }

    @Sendable package func verifyTOTP(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(TOTPVerifyRequest.self, limit: bodyLimit)
        return .json(try await totp.verify(client: try context.requireClient(), request: body))
    }

    /// RFC 7662: form-encoded `token` (and optional `token_type_hint`).
    @Sendable package func introspect(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let contentType = request.headers.value(.contentType) ?? ""
        let raw = try await request.collectBody(limit: bodyLimit)
        let fields: [String: String]
        if contentType.hasPrefix(ignoringASCIICase: "application/x-www-form-urlencoded") {
            fields = Self.form(buffer: raw)
            for (name, value) in fields { try TextCheck.check(value, field: name) }
        } else if contentType.hasPrefix(ignoringASCIICase: "application/json") {
            fields = ["token": try AppError.decodeJSON(IntrospectionJSONBody.self, from: Data(buffer: raw)).token]
        } else {
            throw AppError.unsupportedMediaType(detail: "Send application/x-www-form-urlencoded")
        }
        guard let token = fields["token"], !token.isEmpty else { throw AppError.fieldMissing("token", "token is required") }
        return .json(try await introspection.introspect(token: token, client: try context.requireClient()))
    }

    /// The fields of a form (`application/x-www-form-urlencoded`, or a query): the first value of
    /// each name, `+` and percent escapes decoded; a pair without `=` has the value "". Pairs are split
    /// on the UTF-8 bytes of `&` and `=` in one pass over the contiguous bytes (splitting the String by
    /// Characters walked grapheme clusters, and `split` on its UTF-8 view called a closure per byte:
    /// both were a noticeable share of an introspection of a 600-byte token). Empty pairs are skipped,
    /// and `=` at the start of a pair is passed over (`=a=b` is the field `a` with the value `b`).
    package static func form(_ text: String) -> [String: String] {
        var text = text
        var repeated: Set<String>? = nil
        return text.withUTF8 { form(bytes: $0, repeated: &repeated) }
    }

    /// The fields as ``form(_:)`` reads them, and the names that occur more than once (RFC 6749 §3.1:
    /// a parameter sent twice is an invalid request).
    package static func formNotingRepeats(_ text: String) -> (fields: [String: String], repeated: Set<String>) {
        var text = text
        var repeated: Set<String>? = []
        let fields = text.withUTF8 { form(bytes: $0, repeated: &repeated) }
        return (fields, repeated ?? [])
    }

    /// ``formNotingRepeats(_:)`` of a body.
    package static func formNotingRepeats(buffer: ByteBuffer) -> (fields: [String: String], repeated: Set<String>) {
        var repeated: Set<String>? = []
        let fields = buffer.withUnsafeReadableBytes { form(bytes: $0.assumingMemoryBound(to: UInt8.self), repeated: &repeated) }
        return (fields, repeated ?? [])
    }

    /// The fields of a form body, read from its bytes as ``form(_:)`` reads them from its text (without
    /// first making and validating a String of the whole body: `&` and `=` never occur inside a
    /// multi-byte UTF-8 sequence, so each part is repaired as the whole would have been).
    package static func form(buffer: ByteBuffer) -> [String: String] {
        var repeated: Set<String>? = nil
        return buffer.withUnsafeReadableBytes { form(bytes: $0.assumingMemoryBound(to: UInt8.self), repeated: &repeated) }
    }

    /// `repeated`, when not nil, collects the names seen more than once.
    private static func form(bytes: UnsafeBufferPointer<UInt8>, repeated: inout Set<String>?) -> [String: String] {
        let ampersand = UInt8(ascii: "&"), equals = UInt8(ascii: "=")
        func decode(_ start: Int, _ end: Int) -> String {
            let part = UnsafeBufferPointer(rebasing: bytes[start..<end])
            let text = String(decoding: part, as: UTF8.self)
            // Most values (tokens) have nothing to decode: Foundation's percent decoding was a noticeable
            // share of an introspection.
            guard part.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return text }
            return text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
        }
        var fields: [String: String] = [:]
        var pairStart = 0
        while pairStart < bytes.count {
            var pairEnd = pairStart
            while pairEnd < bytes.count && bytes[pairEnd] != ampersand { pairEnd += 1 }
            var nameStart = pairStart
            while nameStart < pairEnd && bytes[nameStart] == equals { nameStart += 1 }
            if nameStart < pairEnd {
                var nameEnd = nameStart
                while nameEnd < pairEnd && bytes[nameEnd] != equals { nameEnd += 1 }
                let name = decode(nameStart, nameEnd)
                if fields[name] == nil {
                    fields[name] = nameEnd < pairEnd ? decode(nameEnd + 1, pairEnd) : ""
                } else if repeated != nil {
                    repeated?.insert(name)
                }
            }
            pairStart = pairEnd + 1
        }
        return fields
    }
}

/// The JSON form of an introspection request (the form-encoded one is standard): `token`, and an
/// optional `token_type_hint` that must be a string when present.
package struct IntrospectionJSONBody: Decodable {
    package var token: String
    package var tokenTypeHint: String?

    package enum CodingKeys: String, CodingKey {
        case token
        case tokenTypeHint = "token_type_hint"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        token = try container.decode(String.self, forKey: .token)
        if container.contains(.tokenTypeHint) { tokenTypeHint = try container.decode(String.self, forKey: .tokenTypeHint) }
    }
}
