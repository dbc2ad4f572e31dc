import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOSSL
import TesseraCore

/// How the server talks to one verifier node: ``HTTPNodeClient`` calls a `tessera node` process
/// (a remote one or an embedded child process on loopback), signing every call.
package protocol NodeClient: Sendable {
    var nodeId: String { get }
    /// Several records in one call (at most ``NodeDeviceBatch/maxRecords``), one outcome per record.
    func storeAll(_ records: [NodeDeviceRecord]) async throws -> [NodeStoreOutcome]
    func attest(_ request: NodeAttestRequest) async throws -> NodeAttestation
    /// Several passkey records in one call (at most ``NodeDeviceBatch/maxRecords``), one outcome per record.
    func storePasskeys(_ records: [NodePasskeyRecord]) async throws -> [NodeStoreOutcome]
    /// A passkey assertion for the node to verify and attest.
    func attestPasskey(_ request: NodePasskeyAttestRequest) async throws -> NodePasskeyAttestation
}

extension NodeClient {
    /// A node without passkeys (a test double of the device flow) refuses them.
    package func storePasskeys(_ records: [NodePasskeyRecord]) async throws -> [NodeStoreOutcome] {
        throw NodeCallError(nodeId: nodeId, code: nil, message: "this node client has no passkeys")
    }

    package func attestPasskey(_ request: NodePasskeyAttestRequest) async throws -> NodePasskeyAttestation {
        throw NodeCallError(nodeId: nodeId, code: nil, message: "this node client has no passkeys")
    }
}

/// A node's refusal or failure, as the server sees it.
package struct NodeCallError: Error, CustomStringConvertible {
    package var nodeId: String
    /// The node's problem code when it answered with one.
    package var code: ErrorCode?
    package var message: String


    package init(

        nodeId: String,

        code: ErrorCode? = nil,

        message: String

    ) {

        self.nodeId = nodeId

        self.code = code

        self.message = message

    }
    package var description: String { "node \(nodeId): \(code.map { "\($0) " } ?? "")\(message)" }
}

/// A node over HTTP. Every call is an RFC 9421 signed request under the server's
/// node-control key (P-256), which the node was configured to trust (`--server-key`).
package struct HTTPNodeClient: NodeClient {
    package let nodeId: String
    package let baseURL: String
    package let httpClient: HTTPClient
    /// Trust for an https URL beyond the system's roots (`nodes.caFile`).
    package var tlsConfiguration: TLSConfiguration? = nil
    package let signingKey: P256.Signing.PrivateKey
    package let timeout: Duration
    /// The RFC 9421 `keyid` of ``signingKey`` (its thumbprint): one SHA-256, taken once rather than at every call.
    package let keyId: String

    package init(
        nodeId: String, baseURL: String, httpClient: HTTPClient, tlsConfiguration: TLSConfiguration? = nil,
        signingKey: P256.Signing.PrivateKey, timeout: Duration
    ) {
        self.nodeId = nodeId
        self.baseURL = baseURL
        self.httpClient = httpClient
        self.tlsConfiguration = tlsConfiguration
        self.signingKey = signingKey
        self.timeout = timeout
        keyId = MessageSignature.thumbprint(ofX963: signingKey.publicKey.x963Representation)
    }

    /// `PUT /v1/node/devices/{deviceId}`: one record (nodes from before batches).
    package func store(_ record: NodeDeviceRecord) async throws -> NodeReceipt {
        try await call("PUT", "/v1/node/devices/\(record.deviceId)", body: record)
    }

    /// `POST /v1/node/devices`; a node from before batches (404/405) gets one `PUT` per record.
    package func storeAll(_ records: [NodeDeviceRecord]) async throws -> [NodeStoreOutcome] {
        do {
            let answer: NodeStoreBatchResult = try await call("POST", "/v1/node/devices", body: NodeDeviceBatch(records: records))
            guard answer.outcomes.map(\.deviceId) == records.map(\.deviceId) else {
                throw NodeCallError(nodeId: nodeId, code: nil, message: "batch answer does not match the records sent")
            }
            return answer.outcomes
        } catch let error as NodeCallError where error.code == .notFound || error.code == .methodNotAllowed {
            var outcomes: [NodeStoreOutcome] = []
            for record in records {
                do {
                    outcomes.append(NodeStoreOutcome(deviceId: record.deviceId, receipt: try await store(record)))
                } catch let refused as NodeCallError where refused.code != nil {
                    outcomes.append(NodeStoreOutcome(deviceId: record.deviceId, code: refused.code?.rawValue, title: refused.message))
                }
            }
            return outcomes
        }
    }

    package func attest(_ request: NodeAttestRequest) async throws -> NodeAttestation {
        try await call("POST", "/v1/node/attest", body: request)
    }

    /// `POST /v1/node/passkeys`.
    package func storePasskeys(_ records: [NodePasskeyRecord]) async throws -> [NodeStoreOutcome] {
        let answer: NodeStoreBatchResult = try await call("POST", "/v1/node/passkeys", body: NodePasskeyBatch(records: records))
        guard answer.outcomes.map(\.deviceId) == records.map(\.passkeyId) else {
            throw NodeCallError(nodeId: nodeId, code: nil, message: "batch answer does not match the records sent")
        }
        return answer.outcomes
    }

    /// `POST /v1/node/passkeys/attest`.
    package func attestPasskey(_ request: NodePasskeyAttestRequest) async throws -> NodePasskeyAttestation {
        try await call("POST", "/v1/node/passkeys/attest", body: request)
    }

    private func call<Body: Encodable, Answer: Decodable>(_ method: String, _ path: String, body: Body) async throws -> Answer {
        let bytes = try (body as? any JSONObjectWritable).map { Data($0.jsonBytes) } ?? SharedJSON.encoder.encode(body)
        let signed = try MessageSignature.sign(
            method: method, path: path, body: bytes, keyId: keyId,
            privateKey: signingKey, nonce: MessageSignature.randomNonce(), created: Int64(Date().timeIntervalSince1970)
        )
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .init(rawValue: method)
        request.tlsConfiguration = tlsConfiguration
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Content-Digest", value: signed.contentDigest)
        request.headers.add(name: "Signature-Input", value: signed.signatureInput)
        request.headers.add(name: "Signature", value: signed.signature)
        request.body = .bytes(ByteBuffer(bytes: bytes))
        let response: HTTPClientResponse
        let buffer: ByteBuffer
        do {
            response = try await httpClient.execute(request, timeout: .milliseconds(timeout.millis))
            buffer = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw NodeCallError(nodeId: nodeId, code: nil, message: "unreachable: \(error)")
        }
        let data = Data(buffer.readableBytesView)
        guard (200..<300).contains(Int(response.status.code)) else {
            let problem = try? SharedJSON.decoder.decode(Problem.self, from: data)
            throw NodeCallError(nodeId: nodeId, code: problem?.errorCode, message: problem?.title ?? "HTTP \(response.status.code)")
        }
        do { return try SharedJSON.decoder.decode(Answer.self, from: data) } catch {
            throw NodeCallError(nodeId: nodeId, code: nil, message: "unreadable answer")
        }
    }
}
