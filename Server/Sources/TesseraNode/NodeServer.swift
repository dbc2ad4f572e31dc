import Crypto
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import TesseraCore
import TesseraHTTPKit
import TesseraWebAuthn
import X509

/// `tessera node`: a verifier node as its own process.
///
/// Trust: the node accepts only calls signed (RFC 9421, `ecdsa-p256-sha256`) by the server's
/// node-control key, whose public half it is given with `--server-key` (`tessera admin node
/// server-key` prints it). Nonces are recorded in the node's own database, so a captured call
/// cannot be replayed. The server in turn knows the node by its Ed25519 public key and checks every
/// receipt and attestation with it.
public struct NodeServer: Sendable {
    /// The node's settings.
    public struct Configuration: Sendable {
        /// Directory holding `node.key` and `registry.sqlite`.
        public var dataDirectory: String
        /// Address to listen on.
        public var host: String
        /// Port to listen on; 0 picks a free one (see ``NodeServer/run(onListening:)``).
        public var port: Int
        /// The server's node-control public key (P-256, X9.63, base64).
        public var serverKey: String
        /// Largest request body accepted.
        public var bodyLimit: Int = 64 * 1024
        /// Certificate and key to serve HTTPS with; nil: plain HTTP.
        public var tls: TLSFiles?
        /// A PEM file of the App Attest roots to trust instead of Apple's App Attestation Root CA (tests only: a
        /// test's own root); nil: Apple's root, pinned in the binary.
        public var appAttestRoots: String?

        /// Settings with the default body limit.
        public init(dataDirectory: String, host: String, port: Int, serverKey: String, tls: TLSFiles? = nil, appAttestRoots: String? = nil) {
            self.dataDirectory = dataDirectory
            self.host = host
            self.port = port
            self.serverKey = serverKey
            self.tls = tls
            self.appAttestRoots = appAttestRoots
        }
    }

    let service: NodeService
    let serverKey: P256.Signing.PublicKey
    let configuration: Configuration
    let logger: Logger

    /// The node's ID and public key (raw Ed25519, base64), creating the key on first use.
    public static func identity(dataDirectory: String) throws -> (nodeId: String, publicKey: String) {
        let identity = try NodeIdentity.loadOrCreate(directory: dataDirectory)
        return (identity.nodeId, identity.publicKeyBase64)
    }

    /// Opens the node's key and registry. An App Attest roots file that cannot be read or holds anything but PEM
    /// certificates stops it, naming the file.
    public static func open(configuration: Configuration, logger: Logger) async throws -> NodeServer {
        guard let key = P256.Signing.PublicKey(x963Base64: configuration.serverKey.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ConfigurationError("--server-key must be the server's node-control key (P-256, X9.63, base64): see `tessera admin node server-key`")
        }
        let roots = try configuration.appAttestRoots.map { path in
            do { return try AppAttestRoot.certificates(pemFile: path) } catch { throw ConfigurationError("--app-attest-roots: \(error)") }
        }
        if roots != nil {
            logger.warning("App Attest roots replaced: attestations are verified against \(configuration.appAttestRoots ?? ""), not Apple's root (tests only)")
        }
        let service = try await NodeService.open(directory: configuration.dataDirectory, appAttestRoots: roots, logger: logger)
        return NodeServer(service: service, serverKey: key, configuration: configuration, logger: logger)
    }

    /// The node's ID, derived from its public key.
    public var nodeId: String { service.identity.nodeId }
    /// The node's Ed25519 public key (raw, base64).
    public var publicKey: String { service.identity.publicKeyBase64 }

    /// The node's routes: `GET /healthz`, and the signed `PUT /v1/node/devices/{deviceId}`, `POST /v1/node/devices` (a batch),
    /// `POST /v1/node/attest`, `POST /v1/node/passkeys` (a batch) and `POST /v1/node/passkeys/attest`.
    func makeRouter() -> Router<NodeRequestContext> {
        let router = Router(context: NodeRequestContext.self, options: .autoGenerateHeadEndpoints)   // HEAD as GET, RFC 9110 §9.3.2
        let routes = RouteTable()
        router.middlewares.add(ProblemMiddleware(bodyLimit: configuration.bodyLimit, routes: routes))
        let service = self.service, limit = configuration.bodyLimit
        router.get("healthz") { _, _ in try Response.json(try await service.info) }
        let signed = router.group("v1/node").add(
            middleware: SignedRequestMiddleware(
                verifier: SignedRequestVerifier(database: service.database, keys: SingleKeyLookup(publicKey: serverKey), clock: service.clock),
                bodyLimit: limit
            )
        )
        signed.put("devices/{deviceId}") { request, context in
            var request = request
            let record = try await request.decodeJSON(NodeDeviceRecord.self, limit: limit)
            guard record.deviceId == context.parameters.get("deviceId") else {
                throw AppError.invalidField("deviceId", "deviceId must match the path")
            }
            return try Response.json(try await service.store(record))
        }
        signed.post("devices") { request, _ in
            var request = request
            let batch = try await request.decodeJSON(NodeDeviceBatch.self, limit: limit)
            guard batch.records.count <= NodeDeviceBatch.maxRecords else {
                throw AppError.invalidField("records", "at most \(NodeDeviceBatch.maxRecords) records per call")
            }
            return try Response.json(Self.outcomes(batch.records.map(\.deviceId), try await service.storeAll(batch.records)))
        }
        signed.post("passkeys") { request, _ in
            var request = request
            let batch = try await request.decodeJSON(NodePasskeyBatch.self, limit: limit)
            guard batch.records.count <= NodeDeviceBatch.maxRecords else {
                throw AppError.invalidField("records", "at most \(NodeDeviceBatch.maxRecords) records per call")
            }
            return try Response.json(Self.outcomes(batch.records.map(\.passkeyId), try await service.storeAllPasskeys(batch.records)))
        }
        signed.post("passkeys/attest") { request, _ in
            var request = request
            return try Response.json(try await service.attestPasskey(try await request.decodeJSON(NodePasskeyAttestRequest.self, limit: limit)))
        }
        signed.post("attest") { request, _ in
            var request = request
            return try Response.json(try await service.attest(try await request.decodeJSON(NodeAttestRequest.self, limit: limit)))
        }
        routes.fill(from: router.routes)
        return router
    }

    /// A batch's answer: per record (its ID), the receipt or the refusal's code and title.
    static func outcomes(_ ids: [String], _ results: [Result<NodeReceipt, AppError>]) -> NodeStoreBatchResult {
        NodeStoreBatchResult(outcomes: zip(ids, results).map { id, result in
            switch result {
            case .success(let receipt): NodeStoreOutcome(deviceId: id, receipt: receipt)
            case .failure(let error): NodeStoreOutcome(deviceId: id, code: error.code.rawValue, title: error.title)
            }
        })
    }

    /// The node's HTTP(S) application; `onListening` gets the URL it listens on (the bound port when
    /// the configured one is 0).
    func makeApplication(onListening: @escaping @Sendable (String) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        let scheme = configuration.tls == nil ? "http" : "https"
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let configured = configuration.port
        return Application(
            router: makeRouter(),
            server: try HTTPServerBuilder.http1(tls: configuration.tls),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Tessera node"),
            onServerRunning: { channel in
                await onListening("\(scheme)://\(host):\(channel.localAddress?.port ?? configured)")
            },
            logger: logger
        )
    }

    /// Serves until SIGTERM/SIGINT.
    /// - Parameter onListening: called once with the URL the node listens on.
    public func run(onListening: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        do { try await makeApplication(onListening: onListening).runService() } catch {
            await service.close()
            throw error
        }
        await service.close()
    }

    /// Serves until the calling task is cancelled (no signal handling): for a node run inside
    /// another process's task, such as a test's.
    /// - Parameter onListening: called once with the URL the node listens on.
    public func runUntilCancelled(onListening: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        do { try await makeApplication(onListening: onListening).run() } catch {
            await service.close()
            throw error
        }
        await service.close()
    }
}
