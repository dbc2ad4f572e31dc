import Foundation
import TesseraCore

/// Client management (admin CLI and admin API) and client authentication (app calls and
/// relying-party calls).
public struct ClientService: Sendable {
    package let repository: any ClientRepository
    package let hasher: SecretHasher
    package let random: RandomSource
    package let clock: WallClock

    package init(repository: any ClientRepository, hasher: SecretHasher, random: RandomSource, clock: WallClock) {
        self.repository = repository
        self.hasher = hasher
        self.random = random
        self.clock = clock
    }
    /// Lookups by client key are cached this long; a disabled client or a rotated secret takes
    /// effect at once on this instance and within this time on the others.
    package let cache = ClientCache(ttlMillis: 5_000)

    package static let secretDomain = "client-secret"

    private func find(clientKey: String) async throws -> (client: Client, secretHash: String)? {
        let now = clock.now()
        if case .cached(let entry) = cache.lookup(clientKey, now: now) { return entry }
        let found = try await repository.find(clientKey: clientKey)
        cache.store(clientKey, found, now: now)
        return found
    }

    /// Creates a client; the secret is returned here once and stored only as a keyed hash.
    public func create(name: String, bundleIds: [String]) async throws -> ClientWithSecret {
        // At most 200 code points as sent (the schema's maxLength counts them before any trimming), and not blank.
        let sent = name.unicodeScalars.count
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, sent <= 200 else { throw AppError.invalidField("name", "name must be 1–200 characters") }
        let bundles = bundleIds.map { $0.trimmingCharacters(in: .whitespaces) }
        guard !bundles.isEmpty else { throw AppError.invalidField("bundleIds", "give at least one bundle identifier") }
        for bundle in bundles where !Self.isValidBundleId(bundle) {
            throw AppError.invalidField("bundleIds", "'\(bundle)' is not a bundle identifier (letters, digits, '-', '.')")
        }
        let secret = random.token(prefix: "tcs_")
        let client = Client(
            id: random.identifier(prefix: "cl_"), clientKey: random.token(byteCount: 16, prefix: "tck_"), name: name,
            bundleIds: bundles, enabled: true, createdAt: clock.now()
        )
        try await repository.insert(client, secretHash: hasher.hash(secret, domain: Self.secretDomain))
        return ClientWithSecret(client: client, clientSecret: secret)
    }

    public func list() async throws -> [Client] { try await repository.list() }

    /// The client with this key (admin calls), or 1102 with 404.
    package func client(clientKey: String) async throws -> Client {
        guard let found = try await repository.find(clientKey: clientKey) else { throw AppError.noSuchClient() }
        return found.client
    }

    public func setEnabled(clientKey: String, _ enabled: Bool) async throws {
        cache.remove(clientKey)
        guard try await repository.setEnabled(clientKey: clientKey, enabled: enabled, at: clock.now()) else {
            throw AppError.noSuchClient()
        }
    }

    /// Replaces the client secret; the old one stops working at once.
    public func rotateSecret(clientKey: String) async throws -> ClientWithSecret {
        let secret = random.token(prefix: "tcs_")
        cache.remove(clientKey)
        guard let client = try await repository.replaceSecret(
            clientKey: clientKey, secretHash: hasher.hash(secret, domain: Self.secretDomain), at: clock.now()
        ) else {
            throw AppError.noSuchClient()
        }
        return ClientWithSecret(client: client, clientSecret: secret)
    }

    /// Checks an app call: a known, enabled client key and an allowed bundle identifier.
    public func authenticateApp(clientKey: String?, bundleId: String?) async throws -> Client {
        guard let clientKey, !clientKey.isEmpty else {
            throw AppError.clientKeyMissing(detail: "Send the \(TesseraHeader.clientKey) header")
        }
        guard clientKey.count <= 100, let (client, _) = try await find(clientKey: clientKey) else {
            throw AppError.clientUnknown()
        }
        guard client.enabled else { throw AppError.clientDisabled() }
        guard let bundleId, client.bundleIds.contains(bundleId) else {
            throw AppError.bundleIdNotAllowed(detail: "Send an allowed bundle identifier in \(TesseraHeader.bundleId)")
        }
        return client
    }

    /// Checks a relying-party call made with the client key and secret.
    public func authenticateBackend(clientKey: String, secret: String) async throws -> Client {
        guard let (client, hash) = try await find(clientKey: clientKey),
              hasher.verify(secret, domain: Self.secretDomain, against: hash)
        else {
            throw AppError.clientSecretInvalid(detail: "Client credentials invalid")
        }
        guard client.enabled else { throw AppError.clientDisabled() }
        return client
    }

    package static func isValidBundleId(_ value: String) -> Bool {
        !value.isEmpty && value.count <= 155
            && value.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "." || $0 == "-" }
    }
}
