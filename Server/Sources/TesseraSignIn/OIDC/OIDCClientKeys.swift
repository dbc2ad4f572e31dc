import Foundation
import JWTKit
import TesseraCore

/// The clients' own public keys, and what they sign: `private_key_jwt` client assertions (OIDC Core 1.0 §9, RFC 7523
/// §3) at the token and backchannel authentication endpoints, and CIBA `login_hint_token`s.
package struct OIDCClientKeys: Sendable {
    package let database: any Database
    package let clients: ClientService
    package let hasher: SecretHasher
    package let clock: WallClock
    /// The issuer: a client assertion's `aud` must name it or one of its endpoints.
    package let issuer: String
    package var repository: any OIDCClientKeyRepository = SQLOIDCClientKeyRepository()

    package static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    static let assertionDomain = "client-assertion-jti"
    /// The longest lifetime a client assertion may claim (its replay record is kept as long).
    static let assertionLifetime: Int64 = 600_000

    package init(database: any Database, clients: ClientService, hasher: SecretHasher, clock: WallClock, issuer: String) {
        self.database = database
        self.clients = clients
        self.hasher = hasher
        self.clock = clock
        self.issuer = issuer
    }

    /// A client assertion's claims (RFC 7523 §3).
    struct Assertion: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var jti: IDClaim

        /// Checked by ``OIDCClientKeys/authenticate(assertion:clientId:)`` against the injected clock.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The client a `private_key_jwt` assertion authenticates: signed by a key the client registered, `iss` and `sub`
    /// its client key (and `client_id`, when sent, the same), `aud` the issuer or one of its endpoints, not expired
    /// and at most 10 minutes long, its `jti` never used before. Nil otherwise (the caller answers `invalid_client`).
    package func authenticate(assertion: String, clientId: String?) async -> Client? {
        guard assertion.utf8.count <= 16 * 1024, let unverified = try? await JWTKeyCollection().unverified(assertion, as: Assertion.self),
              unverified.iss.value == unverified.sub.value, clientId == nil || clientId == unverified.iss.value,
              let client = try? await clients.client(clientKey: unverified.iss.value), client.enabled,
              let keys = try? await keys(for: client), let claims = try? await keys.verify(assertion, as: Assertion.self),
              claims.iss.value == client.clientKey, claims.sub.value == client.clientKey
        else { return nil }
        let audiences = [issuer, issuer + "/oauth2/token", issuer + "/oauth2/bc-authorize"]
        let now = clock.now(), expires = Int64(claims.exp.value.timeIntervalSince1970 * 1000)
        guard claims.aud.value.contains(where: audiences.contains), expires > now, expires - now <= Self.assertionLifetime,
              !claims.jti.value.isEmpty, claims.jti.value.utf8.count <= 200
        else { return nil }
        let id = hasher.hash(client.id + " " + claims.jti.value, domain: Self.assertionDomain), repository = self.repository
        guard (try? await database.transaction({ sql in try await repository.use(assertion: id, expiresAt: expires, in: sql) })) == true else { return nil }
        return client
    }

    /// The client's registered keys; 404 (1007) when it has none.
    package func keys(for client: Client) async throws -> JWTKeyCollection {
        try await SigningKeySet.keys(try await settings(client: client).jwks)
    }

    /// The client's keys as registered; 404 (1007) when it has none.
    package func settings(client: Client) async throws -> ClientKeySettings {
        let repository = self.repository
        guard let jwks = try await database.read({ sql in try await repository.jwks(clientId: client.id, in: sql) }) else {
            throw AppError.notFound("This client has no keys")
        }
        return ClientKeySettings(jwks: jwks)
    }

    /// Registers the client's keys (a JWK Set with at least one public signing key; 1005 `jwks` otherwise).
    package func setSettings(_ settings: ClientKeySettings, client: Client) async throws -> ClientKeySettings {
        _ = try await SigningKeySet.keys(settings.jwks)
        let repository = self.repository, now = clock.now()
        try await database.transaction { sql in try await repository.save(jwks: settings.jwks, clientId: client.id, now: now, in: sql) }
        return settings
    }

    /// Removes the client's keys: its assertions and login hint tokens are refused from then on.
    package func deleteSettings(client: Client) async throws {
        let repository = self.repository
        guard try await database.transaction({ sql in try await repository.delete(clientId: client.id, in: sql) }) else {
            throw AppError.notFound("This client has no keys")
        }
    }
}

extension OIDCService {
    /// The clients' own keys (`private_key_jwt`, `login_hint_token`).
    package var clientKeys: OIDCClientKeys {
        OIDCClientKeys(database: database, clients: clients, hasher: hasher, clock: clock, issuer: issuer)
    }
}
