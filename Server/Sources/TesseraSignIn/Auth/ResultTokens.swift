import Crypto
import Foundation
import JWTKit
import Logging
import SQLKit
import Synchronization
import _CryptoExtras
import TesseraCore

/// The claims of a result token (also what `tessera rp authenticate` verifies and prints).
public struct ResultClaims: JWTPayload, Equatable {
    public var iss: IssuerClaim
    /// The user key.
    public var sub: SubjectClaim
    /// The client key of the app.
    public var aud: AudienceClaim
    public var iat: IssuedAtClaim
    public var exp: ExpirationClaim
    /// The channel ID: each authentication yields one token.
    public var jti: IDClaim
    /// The client (app) the token was issued to, by its client key: the same value as `aud` and as
    /// introspection's `client_id` (RFC 9068 §2.2, RFC 7662 §2.2).
    public var clientId: String
    public var deviceId: String
    /// RFC 8176 methods: `hwk` (device key) plus the local verification (`pin`, `pwd`, `user`).
    public var amr: [String]
    /// IDs of the nodes whose attestations made the quorum.
    public var nodes: [String]
    /// App Attest (issue 41): `attested` when the server verified the device's App Attest key, `none` when it has
    /// none; absent when the client's App Attest policy is off.
    public var appAttest: String?
    /// App Attest (issue 41): how many of ``nodes`` verified the device's attestation themselves (each said so in its
    /// signed attestation); absent when the client's App Attest policy is off.
    public var appAttestNodes: Int?

    package enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, exp, jti, amr, nodes
        case clientId = "client_id"
        case deviceId = "device_id"
        case appAttest = "app_attest"
        case appAttestNodes = "app_attest_nodes"
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }

    /// RFC 8176 method for a local-auth type.
    package static func method(forLocalAuth type: String) -> String {
        switch type {
        case "PIN": "pin"
        case "PASSWORD": "pwd"
        case "BIOMETRIC": "user"
        case "PASSCODE": "pin"
        default: "user"
        }
    }
}

/// A JWT payload that names its issuer.
package protocol IssuedPayload: JWTPayload {
    var iss: IssuerClaim { get }
}

/// An ID token given back as `id_token_hint` (OIDC Core §3.1.2.1): only whom it names and for whom,
/// verified by signature and issuer; it may have expired.
package struct IDTokenHint: IssuedPayload {
    package var iss: IssuerClaim
    package var sub: SubjectClaim
    package var aud: AudienceClaim
    /// The session at Tessera it was issued in, if any.
    package var sid: String?

    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A JSON Web Key as published at `/.well-known/jwks.json` (with `use` and `alg`, which jwt-kit's JWK
/// lacks): an EC P-256 key (`crv`, `x`, `y`; ES256) or an RSA key (`n`, `e`; RS256).
package struct PublishedJWK: Codable, Sendable, Equatable {
    package var kty = "EC"
    package var crv: String?
    package var x: String?
    package var y: String?
    package var n: String?
    package var e: String?
    package var kid: String
    package var use = "sig"
    package var alg = "ES256"

    /// An ES256 key.
    package init(x: String, y: String, kid: String) {
        crv = "P-256"
        self.x = x
        self.y = y
        self.kid = kid
    }

    /// An RS256 key.
    package init(n: String, e: String, kid: String) {
        kty = "RSA"
        self.n = n
        self.e = e
        self.kid = kid
        alg = "RS256"
    }
}

/// The algorithms ID tokens and result tokens are signed with.
package enum SigningAlgorithm: String, Sendable, Codable, CaseIterable {
    /// ECDSA P-256 with SHA-256: every result token, and ID tokens by default.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256 (2048-bit keys): ID tokens of clients that ask for it (OIDC Core §15.1
    /// says a provider must support it). Its key is made when the first client asks, so that it is published
    /// before anything is signed with it.
    case rs256 = "RS256"
}

/// The result-token keys (ES256, and RS256 for the ID tokens of clients that ask for it): created at
/// first start (RS256 when first asked for), sealed in the database, rotated by the admin. The newest
/// key of each algorithm signs; the one before it stays published so tokens it signed still verify.
package final class ResultTokens: Sendable {
    package let database: any Database
    /// Where the sealed keys are stored.
    package let signingKeys: any SigningKeyRepository
    package let sealKey: SymmetricKey
    package let issuer: String
    package let lifetime: Duration
    package let clock: WallClock
    private let state = Mutex(State())

    /// The loaded keys, replaced whole on each load.
    private struct State {
        var collection = JWTKeyCollection()
        var activeKid = ""
        /// The newest RS256 key, once one was made.
        var rsaKid: String?
        var published: [PublishedJWK] = []
        var loadedAt: Int64 = 0
        var lastUnknownKidReload: Int64 = 0
        /// Tokens whose signature and issuer verified, by the SHA-256 of the token: a relying party
        /// that introspects a token on each of its requests pays the ES256 check once. Emptied
        /// whenever the loaded keys change (a retired key's tokens stop verifying at the same time
        /// as without the cache); expiry is checked on every use.
        var verified: [SHA256Digest: ResultClaims] = [:]
    }

    /// Verified tokens remembered at most (the table starts again empty when full).
    package static let verifiedCapacity = 4096

    package init(
        database: any Database, sealKey: SymmetricKey, issuer: String, lifetime: Duration, clock: WallClock,
        signingKeys: any SigningKeyRepository = SQLSigningKeyRepository()
    ) {
        self.database = database
        self.signingKeys = signingKeys
        self.sealKey = sealKey
        self.issuer = issuer
        self.lifetime = lifetime
        self.clock = clock
    }

    /// Loads the keys: creates the first ES256 key if there is none, and the upcoming key of each
    /// algorithm in use if it has none (published now, signing from the next rotation on).
    package func load() async throws {
        let fresh = JWTKeyCollection()
        var jwks: [PublishedJWK] = []
        var inUse: [SigningAlgorithm: String] = [:]
        for algorithm in SigningAlgorithm.allCases {
            var rows = try await liveKeys(algorithm)
            if rows.isEmpty && algorithm == .es256 {
                try await insertKey(.es256, upcoming: false, now: clock.now())
                rows = try await liveKeys(.es256)
            }
            // RS256 only once a client asked for it (``prepare(_:)``).
            guard let newest = rows.first else { continue }
            var upcoming = try await upcomingKeys(algorithm)
            if upcoming.isEmpty {
                try await insertKey(algorithm, upcoming: true, now: clock.now())
                upcoming = try await upcomingKeys(algorithm)
            }
            inUse[algorithm] = newest.kid
            for (kid, sealed) in rows + upcoming {
                jwks.append(try await add(algorithm, kid: kid, sealed: sealed, to: fresh))
            }
        }
        guard let active = inUse[.es256] else { throw ConfigurationError("no result-token key could be created") }
        let now = clock.now()
        state.withLock {
            if $0.published.map(\.kid) != jwks.map(\.kid) { $0.verified = [:] }
            $0.collection = fresh
            $0.activeKid = active
            $0.rsaKid = inUse[.rs256]
            $0.published = jwks
            $0.loadedAt = now
        }
    }

    /// Adds the key to `collection`; returns its published form.
    private func add(_ algorithm: SigningAlgorithm, kid: String, sealed: String, to collection: JWTKeyCollection) async throws -> PublishedJWK {
        switch algorithm {
        case .es256:
            let key = try P256.Signing.PrivateKey(rawRepresentation: try unseal(sealed, kid: kid))
            await collection.add(ecdsa: try ES256PrivateKey(backing: key), kid: JWKIdentifier(string: kid))
            let point = key.publicKey.x963Representation
            return PublishedJWK(x: point[1...32].base64URLEncodedString(), y: point[33...64].base64URLEncodedString(), kid: kid)
        case .rs256:
            let key = try _RSA.Signing.PrivateKey(derRepresentation: try unseal(sealed, kid: kid))
            await collection.add(rsa: try Insecure.RSA.PrivateKey(backing: key), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            let primitives = try key.publicKey.getKeyPrimitives()
            return PublishedJWK(n: primitives.modulus.base64URLEncodedString(), e: primitives.publicExponent.base64URLEncodedString(), kid: kid)
        }
    }

    private func unseal(_ sealed: String, kid: String) throws -> Data {
        guard let combined = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: combined),
              let raw = try? AES.GCM.open(box, using: sealKey, authenticating: Data(kid.utf8))
        else { throw ConfigurationError("cannot unseal result-token key \(kid): the master key differs") }
        return raw
    }

    /// Newest first: the active key of `algorithm` and the one before it.
    private func liveKeys(_ algorithm: SigningAlgorithm) async throws -> [(kid: String, sealed: String)] {
        let signingKeys = self.signingKeys
        return try await database.withSQL { sql in try await signingKeys.liveKeys(algorithm: algorithm.rawValue, in: sql) }
    }

    /// The upcoming keys of `algorithm`, newest first.
    private func upcomingKeys(_ algorithm: SigningAlgorithm) async throws -> [(kid: String, sealed: String)] {
        let signingKeys = self.signingKeys
        return try await database.withSQL { sql in try await signingKeys.nextKeys(algorithm: algorithm.rawValue, in: sql) }
    }

    private func insertKey(_ algorithm: SigningAlgorithm, upcoming: Bool, now: Int64) async throws {
        let kid: String, secret: Data
        switch algorithm {
        case .es256:
            let key = P256.Signing.PrivateKey()
            kid = "rk_" + MessageSignature.thumbprint(ofX963: key.publicKey.x963Representation).prefix(16)
            secret = key.rawRepresentation
        case .rs256:
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            kid = "rr_" + Data(SHA256.hash(data: key.publicKey.derRepresentation)).base64URLEncodedString().prefix(16)
            secret = key.derRepresentation
        }
        // `combined` is nil only for nonces of a non-standard size, which `seal` does not make.
        guard let sealed = try AES.GCM.seal(secret, using: sealKey, authenticating: Data(kid.utf8)).combined?.base64EncodedString()
        else { throw AppError.internalError }
        let signingKeys = self.signingKeys
        try await database.transaction { sql in
            try await signingKeys.insert(kid: kid, sealed: sealed, algorithm: algorithm.rawValue, next: upcoming, now: now, in: sql)
        }
    }

    /// Rotates each algorithm in use: its upcoming key, published since the last rotation (or the first
    /// start), starts signing; the key before stays published for the tokens it signed; older ones are
    /// retired; a new upcoming key is made and published. Returns the ES256 signing key's ID.
    @discardableResult
    package func rotate() async throws -> String {
        try await load()
        let now = clock.now()
        let algorithms: [SigningAlgorithm] = state.withLock { $0.rsaKid } == nil ? [.es256] : [.es256, .rs256]
        let signingKeys = self.signingKeys
        for algorithm in algorithms {
            let upcoming = try await upcomingKeys(algorithm)
            if upcoming.isEmpty { try await insertKey(algorithm, upcoming: true, now: now) }
            try await database.transaction { sql in
                // Of two upcoming keys (instances that started at once), the newest is put in use, the other retired.
                guard let promoted = try await signingKeys.nextKeys(algorithm: algorithm.rawValue, in: sql).first else { return }
                try await signingKeys.promote(kid: promoted.kid, now: now, in: sql)
                try await signingKeys.retire(algorithm: algorithm.rawValue, now: now, in: sql)
            }
            try await insertKey(algorithm, upcoming: true, now: now)
        }
        try await load()
        return state.withLock { $0.activeKid }
    }

    /// Makes the RS256 keys (the one in use and the upcoming one) if there are none yet (another instance
    /// may have made them: the keys are loaded again first), so that they are in the JWKS before a client's
    /// ID token is signed with them.
    package func prepare(_ algorithm: SigningAlgorithm) async throws {
        guard algorithm == .rs256, state.withLock({ $0.rsaKid }) == nil else { return }
        try await load()
        guard state.withLock({ $0.rsaKid }) == nil else { return }
        try await insertKey(.rs256, upcoming: false, now: clock.now())
        try await load()
    }

    /// Other instances pick up a rotation within a minute.
    private func refreshIfStale() async throws {
        if clock.now() - state.withLock({ $0.loadedAt }) > 60_000 { try await load() }
    }

    package var jwks: [PublishedJWK] {
        get async throws {
            try await refreshIfStale()
            return state.withLock { $0.published }
        }
    }

    /// Signs a result token.
    package func issue(
        userKey: String, clientKey: String, clientId: String, deviceId: String, channelId: String, amr: [String], nodes: [String],
        appAttest: String? = nil, appAttestNodes: Int? = nil
    ) async throws -> String {
        try await refreshIfStale()
        let now = Date(timeIntervalSince1970: TimeInterval(clock.now() / 1000))
        let claims = ResultClaims(
            iss: .init(value: issuer), sub: .init(value: userKey), aud: .init(value: [clientKey]), iat: .init(value: now),
            exp: .init(value: now.addingTimeInterval(TimeInterval(lifetime.components.seconds))), jti: .init(value: channelId),
            clientId: clientId, deviceId: deviceId, amr: amr, nodes: nodes, appAttest: appAttest, appAttestNodes: appAttestNodes
        )
        let (keys, kid) = state.withLock { ($0.collection, $0.activeKid) }
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// Signs other claims (the OpenID Connect ID token) with the active key of `algorithm`, one the JWKS publishes.
    /// `type` is the header's `typ` (`logout+jwt` for a logout token), none when nil.
    package func sign(_ payload: some JWTPayload, algorithm: SigningAlgorithm = .es256, type: String? = nil) async throws -> String {
        try await refreshIfStale()
        if algorithm == .rs256 { try await prepare(.rs256) }
        let (keys, kid) = state.withLock { ($0.collection, algorithm == .rs256 ? $0.rsaKid ?? "" : $0.activeKid) }
        var header = JWTHeader()
        header.typ = type
        return try await keys.sign(payload, kid: JWKIdentifier(string: kid), header: header)
    }

    /// Verifies signature, issuer and expiry; throws code 6101 otherwise. A token signed with a key this
    /// instance does not know yet (rotated in by another instance) makes it reload the keys at once,
    /// at most once a second, instead of waiting for the minute's refresh.
    package func verify(_ token: String) async throws -> ResultClaims {
        try await refreshIfStale()
        guard token.utf8.count < 8192 else { throw Self.invalidToken }
        let digest = SHA256.hash(data: Data(token.utf8))
        if let claims = state.withLock({ $0.verified[digest] }) {
            return try current(claims)
        }
        let collection = state.withLock { $0.collection }
        if let signed = try? await collection.verify(token, as: SignedResultClaims.self) {
            let claims = try current(signed.claims)
            state.withLock { state in
                guard state.collection === collection else { return }  // the keys were loaded again meanwhile
                if state.verified.count >= Self.verifiedCapacity { state.verified.removeAll(keepingCapacity: true) }
                state.verified[digest] = claims
            }
            return claims
        }
        let now = clock.now()
        let unknownKid = Self.kid(of: token)
        let reload = state.withLock { state in
            guard let kid = unknownKid, !state.published.contains(where: { $0.kid == kid }), now - state.lastUnknownKidReload >= 1000 else {
                return false
            }
            state.lastUnknownKidReload = now
            return true
        }
        guard reload else { throw Self.invalidToken }
        try await load()
        guard let signed = try? await state.withLock({ $0.collection }).verify(token, as: SignedResultClaims.self) else {
            throw Self.invalidToken
        }
        return try current(signed.claims)
    }

    /// The claims of a token whose signature verified, if they name this issuer and have not expired by the
    /// injected clock (jwt-kit's own expiry check reads the system's); throws code 6101 otherwise.
    private func current(_ claims: ResultClaims) throws -> ResultClaims {
        let now = Date(timeIntervalSince1970: TimeInterval(clock.now()) / 1000)
        guard claims.iss.value == issuer, (try? claims.exp.verifyNotExpired(currentDate: now)) != nil else { throw Self.invalidToken }
        return claims
    }

    /// The claims of a token signed by one of the published keys and naming this issuer, whether or
    /// not it expired (an `id_token_hint`, OIDC Core §3.1.2.1); nil otherwise.
    package func verifySignature<Payload: IssuedPayload>(_ token: String, as payload: Payload.Type) async -> Payload? {
        guard token.utf8.count < 8192, (try? await refreshIfStale()) != nil,
              let claims = try? await state.withLock({ $0.collection }).verify(token, as: Payload.self), claims.iss.value == issuer
        else { return nil }
        return claims
    }

    package static let invalidToken = AppError.tokenInvalid(detail: "The token is malformed, expired or not issued by this server")

    /// The `kid` of a compact JWS header, if it has one.
    package static func kid(of token: String) -> String? {
        guard let header = token.split(separator: ".", maxSplits: 1).first, header.count < 1024 else { return nil }
        var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["kid"] as? String
    }
}

/// A result token's claims with only the signature checked by jwt-kit: ``ResultTokens/verify(_:)`` checks the expiry
/// itself against the injected clock (``ResultClaims``' own check, for other verifiers, reads the system's).
private struct SignedResultClaims: JWTPayload {
    let claims: ResultClaims

    init(from decoder: any Decoder) throws { claims = try ResultClaims(from: decoder) }

    func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
