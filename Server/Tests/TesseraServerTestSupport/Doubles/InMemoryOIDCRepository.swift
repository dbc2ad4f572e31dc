import SQLKit
import Synchronization
@testable import TesseraServer

/// ``OIDCRepository`` in memory: the OIDC domain's storage for tests of ``OIDCService`` that need
/// no `oidc_*` tables. It keeps the observable behaviour of ``SQLOIDCRepository``, which
/// `OIDCRepositoryConformanceTests` checks by running the same cases on both:
///
/// - a request is inserted pending (the channel, identification and completion it carries are not
///   stored), identified at most once, completed at most once, and a refused completion stores no code;
/// - a completion whose code hash is taken fails (``DuplicateKey``) and leaves the request pending,
///   as the SQL transaction rolls back;
/// - a code is stored unused and marked used at most once; a token is stored unrevoked;
/// - revoking a code's tokens revokes only those (access and refresh tokens of its family), keeping the first
///   revocation time; a refresh token is used at most once, its successor and access token stored with the use;
/// - a purge removes the requests, codes and tokens whose `expiresAt` is before the cutoff, each table
///   on its own, and keeps client settings.
///
/// Where it cannot be the same: it knows no clients, so references to `clients` are not checked; and
/// ``identify(_:channelId:at:in:)`` ignores the caller's transaction (it never runs a statement on it):
/// it takes effect at once and is not undone when that transaction rolls back.
package final class InMemoryOIDCRepository: OIDCRepository, Sendable {
    /// A second row with the same key, refused as the table's primary key refuses it.
    package struct DuplicateKey: Error, CustomStringConvertible {
        package let table: String
        package let key: String

        package var description: String { "duplicate key \(key) in \(table)" }
    }

    private struct StoredToken {
        var codeHash: String
        var token: OIDCAccessToken
    }

    private struct State {
        var settings: [String: OIDCClientSettings] = [:]
        var requests: [String: OIDCPendingRequest] = [:]
        var codes: [String: OIDCCode] = [:]
        var tokens: [String: StoredToken] = [:]
        var refreshTokens: [String: OIDCRefreshToken] = [:]
        var logos: [String: ClientLogo] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    package func settings(clientId: String) async throws -> OIDCClientSettings? {
        state.withLock { state in
            state.settings[clientId].map { settings in
                var settings = settings
                settings.logoDigest = state.logos[clientId]?.digest
                return settings
            }
        }
    }

    package func setSettings(_ settings: OIDCClientSettings, clientId: String, at time: Int64) async throws {
        state.withLock { $0.settings[clientId] = settings }
    }

    package func setLogo(_ logo: ClientLogo?, clientId: String, at time: Int64) async throws -> Bool {
        state.withLock { state in
            guard state.settings[clientId] != nil else { return false }
            state.logos[clientId] = logo
            return true
        }
    }

    package func logo(clientId: String) async throws -> ClientLogo? {
        state.withLock { $0.logos[clientId] }
    }

    package func insert(_ request: OIDCPendingRequest) async throws {
        try state.withLock { state in
            guard state.requests[request.id] == nil else { throw DuplicateKey(table: "oidc_requests", key: request.id) }
            var pending = request
            pending.channelId = nil
            pending.identifiedAt = nil
            pending.completedAt = nil
            state.requests[request.id] = pending
        }
    }

    package func request(_ id: String) async throws -> OIDCPendingRequest? {
        state.withLock { $0.requests[id] }
    }

    package func identify(_ id: String, channelId: String?, at time: Int64, in sql: any SQLDatabase) async throws -> Bool {
        state.withLock { state in
            guard var request = state.requests[id], request.identifiedAt == nil else { return false }
            request.channelId = channelId
            request.identifiedAt = time
            state.requests[id] = request
            return true
        }
    }

    package func complete(_ id: String, code: OIDCCode, at time: Int64) async throws -> Bool {
        try state.withLock { state in
            guard var request = state.requests[id], request.completedAt == nil else { return false }
            // Checked before anything changes: in SQL the failing insert rolls the completion back.
            guard state.codes[code.codeHash] == nil else { throw DuplicateKey(table: "oidc_codes", key: code.codeHash) }
            request.completedAt = time
            state.requests[id] = request
            var unused = code
            unused.usedAt = nil
            state.codes[code.codeHash] = unused
            return true
        }
    }

    package func end(_ id: String, at time: Int64) async throws -> Bool {
        state.withLock { state in
            guard var request = state.requests[id], request.completedAt == nil else { return false }
            request.completedAt = time
            state.requests[id] = request
            return true
        }
    }

    package func code(hash: String) async throws -> OIDCCode? {
        state.withLock { $0.codes[hash] }
    }

    package func markUsed(codeHash: String, at time: Int64) async throws -> Bool {
        state.withLock { state in
            guard var code = state.codes[codeHash], code.usedAt == nil else { return false }
            code.usedAt = time
            state.codes[codeHash] = code
            return true
        }
    }

    package func insertToken(hash: String, codeHash: String, _ token: OIDCAccessToken, refresh: OIDCRefreshToken?, at time: Int64) async throws {
        try state.withLock { state in
            // Checked before anything changes: in SQL the failing insert rolls the transaction back.
            guard state.tokens[hash] == nil else { throw DuplicateKey(table: "oidc_tokens", key: hash) }
            if let refresh, state.refreshTokens[refresh.tokenHash] != nil { throw DuplicateKey(table: "oidc_refresh_tokens", key: refresh.tokenHash) }
            Self.store(access: token, hash: hash, codeHash: codeHash, in: &state)
            if let refresh { Self.store(refresh: refresh, in: &state) }
        }
    }

    private static func store(access token: OIDCAccessToken, hash: String, codeHash: String, in state: inout State) {
        var unrevoked = token
        unrevoked.revokedAt = nil
        state.tokens[hash] = StoredToken(codeHash: codeHash, token: unrevoked)
    }

    private static func store(refresh token: OIDCRefreshToken, in state: inout State) {
        var fresh = token
        fresh.usedAt = nil
        fresh.revokedAt = nil
        state.refreshTokens[token.tokenHash] = fresh
    }

    package func revokeTokens(codeHash: String, at time: Int64) async throws {
        state.withLock { state in
            for (hash, stored) in state.tokens where stored.codeHash == codeHash && stored.token.revokedAt == nil {
                state.tokens[hash]?.token.revokedAt = time
            }
            for (hash, token) in state.refreshTokens where token.family == codeHash && token.revokedAt == nil {
                state.refreshTokens[hash]?.revokedAt = time
            }
        }
    }

    package func token(hash: String) async throws -> OIDCAccessToken? {
        state.withLock { $0.tokens[hash]?.token }
    }

    package func revokeToken(hash: String, at time: Int64) async throws -> Bool {
        state.withLock { state in
            guard let stored = state.tokens[hash], stored.token.revokedAt == nil else { return false }
            state.tokens[hash]?.token.revokedAt = time
            return true
        }
    }

    package func refreshToken(hash: String) async throws -> OIDCRefreshToken? {
        state.withLock { $0.refreshTokens[hash] }
    }

    package func rotate(
        refreshHash: String, successor: OIDCRefreshToken, accessHash: String, access: OIDCAccessToken, at time: Int64
    ) async throws -> Bool {
        try state.withLock { state in
            guard let current = state.refreshTokens[refreshHash], current.usedAt == nil, current.revokedAt == nil else { return false }
            guard state.refreshTokens[successor.tokenHash] == nil else { throw DuplicateKey(table: "oidc_refresh_tokens", key: successor.tokenHash) }
            guard state.tokens[accessHash] == nil else { throw DuplicateKey(table: "oidc_tokens", key: accessHash) }
            state.refreshTokens[refreshHash]?.usedAt = time
            Self.store(refresh: successor, in: &state)
            Self.store(access: access, hash: accessHash, codeHash: successor.family, in: &state)
            return true
        }
    }

    package func purge(before cutoff: Int64) async throws {
        state.withLock { state in
            state.requests = state.requests.filter { $0.value.expiresAt >= cutoff }
            state.codes = state.codes.filter { $0.value.expiresAt >= cutoff }
            state.tokens = state.tokens.filter { $0.value.token.expiresAt >= cutoff }
            state.refreshTokens = state.refreshTokens.filter { $0.value.expiresAt >= cutoff }
        }
    }
}
