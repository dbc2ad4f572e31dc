import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOSSL
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
@testable import TesseraNode
import TesseraServerTestSupport

/// Per-IP limits count forwarded clients only behind a trusted proxy; the server and the verifier
/// nodes serve HTTPS with `tls.*`, and the server reaches a node with a self-signed certificate
/// through `nodes.caFile`.
@Suite("HTTP: trusted proxies and TLS")
struct ProxyAndTLSHTTPTests {
    /// Starts `flows.perIpHourlyLimit + 1` registration flows with the given forwarded addresses and
    /// returns which were refused as rate limited.
    static func startFlows(trustedProxies: [String], forwardedFor: [String]) async throws -> [Bool] {
        // A manual clock in the middle of an hour: the limit's window is the clock's hour, and on the
        // system clock a run that crossed the hour counted the flows in two windows.
        try await withTestRuntime(.sqlite, clock: ManualClock(start: 1_800_001_800_000).clock, configure: {
            $0.flowPerIPHourlyLimit = 2
            $0.trustedProxies = trustedProxies.compactMap(ClientAddressResolver.AddressRange.init)
        }) { runtime in
            let client = try await runtime.makeTestClient()
            let app = Application(router: runtime.makeRouter(), logger: TestDatabase.logger)
            return try await app.test(.live) { http in
                var refused: [Bool] = []
                for address in forwardedFor {
                    var headers = HTTPErrorTests().appHeaders(client)
                    headers[try #require(HTTPField.Name("X-Forwarded-For"))] = address
                    try await http.run(uri: "/v1/flows/registration", method: .post, headers: headers) { response in
                        if response.status == .created {
                            refused.append(false)
                        } else {
                            try HTTPErrorTests().expectProblem(response, .flowRateLimited)
                            refused.append(true)
                        }
                    }
                }
                return refused
            }
        }
    }

    @Test("behind a trusted proxy the per-IP flow limit counts each forwarded client")
    func trustedProxyLimit() async throws {
        // The test server listens on localhost: the proxy is 127.0.0.1 or ::1.
        let refused = try await Self.startFlows(
            trustedProxies: ["127.0.0.1", "::1"],
            forwardedFor: ["203.0.113.5", "198.51.100.1, 203.0.113.5", "203.0.113.5", "203.0.113.6", "203.0.113.7"]
        )
        #expect(refused == [false, false, true, false, false])
    }

    @Test("from an untrusted peer forwarded addresses are ignored: the socket address is limited")
    func untrustedPeerLimit() async throws {
        let refused = try await Self.startFlows(
            trustedProxies: ["192.0.2.1"], forwardedFor: ["203.0.113.5", "203.0.113.6", "203.0.113.7", "203.0.113.8"]
        )
        #expect(refused == [false, false, true, true])
    }

    /// A client that trusts only `certificate`.
    static func client(trusting certificate: TestCertificate) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(certificate.certificate)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
    }

    static func get(_ client: HTTPClient, _ url: String) async throws -> UInt {
        try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10)).status.code
    }

    @Test("with tls.certificate and tls.key the server answers over HTTPS only")
    func serverTLS() async throws {
        let certificate = try TestCertificate()
        defer { certificate.remove() }
        // A manual clock in the middle of an hour: the limit's window is the clock's hour, and on the
        // system clock a run that crossed the hour counted the flows in two windows.
        try await withTestRuntime(.sqlite, clock: ManualClock(start: 1_800_001_800_000).clock, configure: {
            $0.tls = certificate.files
            $0.embeddedNodes = 0
        }) { runtime in
            let app = try runtime.makeApplication()
            try await app.test(.ahc(.https)) { http in
                let port = try #require(http.port)
                let client = Self.client(trusting: certificate)
                do {
                    #expect(try await Self.get(client, "https://localhost:\(port)/healthz") == 200)
                    await #expect(throws: (any Error).self) { _ = try await Self.get(client, "http://localhost:\(port)/healthz") }
                    // The system roots do not know the certificate. (AsyncHTTPClient retries a failed handshake until the
                    // deadline, then throws the handshake's error.)
                    await #expect {
                        _ = try await HTTPClient.shared.execute(HTTPClientRequest(url: "https://localhost:\(port)/healthz"), timeout: .seconds(2))
                    } throws: { "\($0)".contains("CERTIFICATE_VERIFY_FAILED") }
                } catch {
                    try await client.shutdown()
                    throw error
                }
                try await client.shutdown()
            }
        }
    }

    @Test("a node serving HTTPS with a self-signed certificate is reached through nodes.caFile, and not without it")
    func nodeTLS() async throws {
        let certificate = try TestCertificate()
        defer { certificate.remove() }
        // A manual clock in the middle of an hour: the limit's window is the clock's hour, and on the
        // system clock a run that crossed the hour counted the flows in two windows.
        try await withTestRuntime(.sqlite, clock: ManualClock(start: 1_800_001_800_000).clock, configure: {
            $0.nodeCAFile = certificate.certificate
            $0.embeddedNodes = 0
        }) { runtime in
            let directory = runtime.configuration.dataDirectory + "/node"
            let node = try await NodeServer.open(
                configuration: .init(
                    dataDirectory: directory, host: "127.0.0.1", port: 0, serverKey: runtime.nodeAdmin.serverKey, tls: certificate.files
                ),
                logger: TestDatabase.logger
            )
            let app = try node.makeApplication()
            try await app.test(.ahc(.https)) { http in
                let url = "https://localhost:\(try #require(http.port))"
                let entry = try await runtime.nodeAdmin.add(url: url, publicKey: node.publicKey, name: nil)
                let registered = try #require(try await runtime.nodes.node(entry.nodeId))
                let request = NodeAttestRequest(channelId: "ch", deviceId: "dev_unknown", challenge: "c", challengeSignature: "")
                // The node answered (over TLS, signature checked): it does not know the device.
                await #expect { _ = try await registered.client.attest(request) } throws: {
                    ($0 as? NodeCallError)?.code == .nodeDeviceUnknown
                }
                // The same call without the CA file fails at the TLS handshake.
                let untrusting = HTTPNodeClient(
                    nodeId: entry.nodeId, baseURL: url, httpClient: .shared, signingKey: runtime.keys.nodeControlKey, timeout: .seconds(2)
                )
                await #expect { _ = try await untrusting.attest(request) } throws: {
                    let error = $0 as? NodeCallError
                    return error?.code == nil && error?.message.contains("CERTIFICATE_VERIFY_FAILED") == true
                }
            }
            await node.service.close()
        }
    }
}
