import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TesseraCore
import TesseraServer

/// Options of every `tessera admin` command that talks to a running server: where it listens and
/// the admin token. Without `--server`, the server is the local deployment's (its `--data-dir` or
/// `--database-url`, host, port and TLS, read the way `tessera serve` reads them).
struct AdminOptions: ParsableArguments {
    @Option(help: "The running server's URL (default: the local deployment's, from its host, port and TLS configuration).")
    var server: String?

    @Option(
        name: .customLong("admin-token"),
        help: "The admin token (or TESSERA_ADMIN_TOKEN, or adminToken in --config; `tessera serve` prints it at its first start)."
    )
    var adminToken: String?

    @OptionGroup var deployment: ServerOptions
}

/// The admin HTTP API of a running server (`/v1/admin/…` with the admin token from `--admin-token`,
/// `TESSERA_ADMIN_TOKEN` or the `--config` file). The server checks and applies every change, so
/// its caches, node registrations and signing keys stay in step.
struct AdminAPI: Sendable {
    let base: String
    let token: String

    /// Resolves the server and the admin token: an unknown flag or a missing token is a usage error
    /// (exit 2), no local deployment without `--server` a local failure (exit 3) that says how to
    /// reach the running server instead.
    static func connect(_ options: AdminOptions) async throws -> AdminAPI {
        let configuration = try await options.deployment.configuration(overrides: options.adminToken.map { ["adminToken": .string($0)] } ?? [:])
        let base: String
        if let server = options.server {
            guard let url = URL(string: server), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("--server must be an http:// or https:// URL")
            }
            base = server.hasSuffix("/") ? String(server.dropLast()) : server
        } else {
            do {
                try DeploymentStorage.checkExists(configuration)
            } catch let error as ConfigurationError {
                throw CLIFailure.local(
                    """
                    \(error.description)
                    To reach a running server from elsewhere, give its URL and the admin token:
                      tessera admin … --server URL --admin-token TOKEN   (or TESSERA_ADMIN_TOKEN=TOKEN)
                    (`tessera serve` prints the token at its first start; `tessera admin token reset` makes a new one where it runs)
                    """
                )
            }
            base = localURL(configuration)
        }
        guard let token = configuration.adminToken, !token.isEmpty else {
            throw ValidationError(
                "give the admin token with --admin-token or TESSERA_ADMIN_TOKEN (`tessera serve` prints it at first start; `tessera admin token reset` makes a new one)"
            )
        }
        return AdminAPI(base: base, token: token)
    }

    /// The URL a local `tessera serve` with this configuration answers on (a wildcard address is
    /// reached over loopback).
    static func localURL(_ configuration: ServerConfiguration) -> String {
        var host = configuration.host
        switch host {
        case "0.0.0.0", "": host = "127.0.0.1"
        case "::": host = "::1"
        default: break
        }
        if host.contains(":") { host = "[\(host)]" }
        return "\(configuration.tls == nil ? "http" : "https")://\(host):\(configuration.port)"
    }

    /// `GET path?query`, decoded.
    func get<Value: Decodable>(_ path: String, query: [String: String] = [:], as type: Value.Type) async throws -> Value {
        try Self.decode(type, try await call(.GET, path, query: query))
    }

    /// A call with an optional JSON body, its answer decoded.
    func send<Value: Decodable>(_ method: HTTPMethod, _ path: String, body: (any Encodable)? = nil, as type: Value.Type) async throws -> Value {
        try Self.decode(type, try await call(method, path, body: try body.map { try JSONEncoder().encode($0) }))
    }

    /// A call whose answer has no body (204).
    func send(_ method: HTTPMethod, _ path: String, body: (any Encodable)? = nil) async throws {
        _ = try await call(method, path, body: try body.map { try JSONEncoder().encode($0) })
    }

    /// One call; a refusal becomes exit 1 with its code, a server that cannot be reached exit 3.
    func call(
        _ method: HTTPMethod, _ path: String, query: [String: String] = [:], body: Data? = nil, contentType: String = "application/json"
    ) async throws -> Data {
        var components = URLComponents()
        components.percentEncodedPath = "/v1/admin/" + path
        if !query.isEmpty { components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) } }
        var request = HTTPClientRequest(url: base + (components.url?.absoluteString ?? components.path))
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        // One attempt to connect: a server that is not running is reported at once, not after retries.
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(10)))
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let answer: Result<(status: Int, data: Data), any Error>
        do {
            let response = try await client.execute(request, timeout: .seconds(60))
            answer = .success((Int(response.status.code), Data(try await response.body.collect(upTo: 16 << 20).readableBytesView)))
        } catch {
            answer = .failure(error)
        }
        try? await client.shutdown()
        switch answer {
        case .failure(let error):
            throw CLIFailure.local("cannot reach the Tessera server at \(base) (\(error)): is `tessera serve` running there? (--server names another)")
        case .success(let (status, data)):
            guard (200..<300).contains(status) else { throw CLIFailure(status: status, problem: data) }
            return data
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, _ data: Data) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw CLIFailure.local("the server's answer cannot be read: \(error)")
        }
    }
}
