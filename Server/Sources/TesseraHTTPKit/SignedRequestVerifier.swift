import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import SQLKit
import TesseraCore

/// Verifies RFC 9421 signed device requests: one piece of code for every device endpoint.
///
/// Order of checks: headers present (3001), parseable and covering what Tessera requires (3002),
/// `created` within the skew (3003), body matches `Content-Digest` (3005), the key is known (3007)
/// and not revoked (3008), the signature verifies (3006), and last the nonce is recorded once per key
/// in the database (3004), so a replay is refused on every instance.
public struct SignedRequestVerifier<Details: Sendable>: Sendable {
    let database: any Database
    let keys: any DeviceKeyLookup<Details>
    let clock: WallClock
    var maxSkew: Duration = .seconds(300)
    /// On PostgreSQL (when batched), the nonces of concurrent requests recorded in one statement.
    let nonces: StatementBatcher<RequestNonces.Entry, Bool>?

    /// A verifier recording nonces in `database` (its `request_nonces` table, see ``RequestNonces``); on PostgreSQL,
    /// when `batched`, the nonces of concurrent requests go in one statement (for a verifier that lives as long as
    /// the server, not one made for a single request).
    public init(
        database: any Database, keys: any DeviceKeyLookup<Details>, clock: WallClock, maxSkew: Duration = .seconds(300), batched: Bool = true
    ) {
        self.database = database
        self.keys = keys
        self.clock = clock
        self.maxSkew = maxSkew
        nonces = batched && database.kind == .postgres ? StatementBatcher { entries in
            try await database.withSQL { try await RequestNonces.record(entries, in: $0) }
        } : nil
    }

    /// The verified signer.
    public struct Verified: Sendable {
        /// The signer's device ID.
        public var deviceId: String
        /// The nonce, now recorded.
        public var nonce: String
        /// The key as the lookup found it.
        public var key: DeviceSigningKey<Details>
    }

    /// Checks the signature of a request (see the type's documentation for the order of checks).
    public func verify(method: String, path: String, headers: HTTPFields, body: ByteBuffer) async throws -> Verified {
        guard let input = HTTPField.Name("Signature-Input").flatMap({ headers[$0] }),
              let signature = HTTPField.Name("Signature").flatMap({ headers[$0] }),
              let digest = HTTPField.Name("Content-Digest").flatMap({ headers[$0] })
        else {
            throw AppError.signatureMissing(detail: "Send Content-Digest, Signature-Input and Signature (RFC 9421)")
        }
        let parsed: MessageSignature.Parsed
        do {
            parsed = try MessageSignature.parse(signatureInput: input, signature: signature)
        } catch {
            throw AppError.signatureMalformed(detail: String(describing: error))
        }
        // Parameters may come in any order (RFC 9421 §2.3); the components must be exactly these.
        guard parsed.components == MessageSignature.requiredComponents, parsed.algorithm == MessageSignature.algorithm else {
            throw AppError.signatureMalformed(
                detail: "cover (\"@method\" \"@path\" \"content-digest\") with created, nonce, keyid and alg=\"ecdsa-p256-sha256\""
            )
        }
        let now = clock.now()
        let skew = maxSkew.millis
        guard abs(parsed.created * 1000 - now) <= skew else {
            throw AppError.signatureExpired(detail: "created must be within 5 minutes of the server's clock")
        }
        guard constantTimeEquals(Array(MessageSignature.contentDigest(of: body.readableBytesView).utf8), Array(digest.utf8)) else {
            throw AppError.contentDigestMismatch()
        }
        guard let key = try await keys.signingKey(for: parsed.keyId) else {
            throw AppError.deviceUnknown()
        }
        guard !key.revoked else { throw AppError.deviceRevoked() }
        let base = MessageSignature.signatureBase(method: method, path: path, contentDigest: digest, signatureParams: parsed.signatureParams)
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: parsed.signature),
              key.publicKey.isValidSignature(ecdsa, for: Data(base.utf8))
        else {
            throw AppError.signatureInvalid()
        }
        let entry = RequestNonces.Entry(keyId: parsed.keyId, nonce: parsed.nonce, expiresAt: now + 2 * skew)
        let fresh: Bool
        if let nonces {
            fresh = try await nonces.answer(entry)
        } else {
            fresh = try await database.withSQL { try await RequestNonces.record(entry, in: $0) }
        }
        guard fresh else { throw AppError.nonceReplayed() }
        return Verified(deviceId: key.deviceId, nonce: parsed.nonce, key: key)
    }
}

/// The `request_nonces` table, where ``SignedRequestVerifier`` records each signature's nonce once per key
/// (so that a replay is refused on every instance).
public enum RequestNonces {
    /// The table's statements, for a migration of each database that verifies signatures.
    public static let tableStatements = [
        """
        CREATE TABLE request_nonces (
            key_id TEXT NOT NULL,
            nonce TEXT NOT NULL,
            expires_at BIGINT NOT NULL,
            PRIMARY KEY (key_id, nonce)
        )
        """,
        "CREATE INDEX request_nonces_expiry ON request_nonces (expires_at)",
    ]

    /// A signature's nonce to record.
    public struct Entry: Hashable, Sendable {
        let keyId: String
        let nonce: String
        let expiresAt: Int64
    }

    /// Records the nonce; false when the key used it before (a replay).
    static func record(_ entry: Entry, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            INSERT INTO request_nonces (key_id, nonce, expires_at) VALUES (\(bind: entry.keyId), \(bind: entry.nonce), \(bind: entry.expiresAt))
            ON CONFLICT (key_id, nonce) DO NOTHING RETURNING nonce
            """
        ).first() != nil
    }

    /// Records many nonces (PostgreSQL), one answer each in their order: a nonce twice in the batch is new only the
    /// first time, as if each had been recorded alone.
    static func record(_ entries: [Entry], in sql: any SQLDatabase) async throws -> [Bool] {
        struct Used: Hashable {
            let keyId: String
            let nonce: String
        }
        var fresh = [Bool](repeating: false, count: entries.count)
        // An INSERT … ON CONFLICT DO NOTHING skips a row that conflicts with another of the same statement, but
        // RETURNING cannot tell which of the two was written: a repeat goes in the next round, where it conflicts.
        let used = entries.map { Used(keyId: $0.keyId, nonce: $0.nonce) }
        for round in BatchRounds.split(used) {
            let rows = try await sql.statement(
                """
                INSERT INTO request_nonces (key_id, nonce, expires_at)
                SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[])
                ON CONFLICT (key_id, nonce) DO NOTHING RETURNING key_id, nonce
                """,
                round.map { entries[$0].keyId }, round.map { entries[$0].nonce }, round.map { entries[$0].expiresAt }
            ).all()
            let written = Set(try rows.map { Used(keyId: try $0.decode(column: "key_id", as: String.self), nonce: try $0.decode(column: "nonce", as: String.self)) })
            for index in round { fresh[index] = written.contains(used[index]) }
        }
        return fresh
    }

    /// Deletes nonces whose signatures can no longer be accepted anyway.
    public static func purge(before cutoff: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM request_nonces WHERE expires_at < \(bind: cutoff)").run()
    }
}

extension Request {
    /// Reads a JSON body that is signed by a key it carries itself (sign-up and re-registration:
    /// proof of possession of a new device key). The body is read once; the signature is checked
    /// over those exact bytes with the key `publicKey` extracts, under that key's thumbprint.
    public mutating func decodeSelfSigned<T: Decodable>(
        _ type: T.Type, limit: Int, database: any Database, clock: WallClock, publicKey: (T) throws -> P256.Signing.PublicKey
    ) async throws -> T {
        let raw = try await collectBody(limit: limit)
        var replay = Request(head: head, body: .init(buffer: raw))
        let body = try await replay.decodeJSON(T.self, limit: limit)
        let verifier = SignedRequestVerifier(database: database, keys: SingleKeyLookup(publicKey: try publicKey(body)), clock: clock, batched: false)
        _ = try await verifier.verify(method: method.rawValue, path: uri.path, headers: headers, body: raw)
        return body
    }
}

/// Middleware for device endpoints: verifies the signature over the exact body received and puts
/// the device ID in the context.
public struct SignedRequestMiddleware<Context: ProblemContext>: RouterMiddleware {
    let verifier: SignedRequestVerifier<Context.SignerDetails>
    let bodyLimit: Int

    /// Verifies with `verifier`, reading at most `bodyLimit` bytes.
    public init(verifier: SignedRequestVerifier<Context.SignerDetails>, bodyLimit: Int) {
        self.verifier = verifier
        self.bodyLimit = bodyLimit
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        let body = try await request.collectBody(limit: bodyLimit)
        let verified = try await verifier.verify(method: request.method.rawValue, path: request.uri.path, headers: request.headers, body: body)
        var context = context
        context.signer = verified.key
        return try await next(request, context)
    }
}
