import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// SMS delivery over HTTP. A real SMS provider cannot be reached from here, so a stand-in HTTP
/// server on loopback plays the provider (named as such): it records the form POSTs it receives.
@Suite("SMS over HTTP")
struct HTTPSMSSenderTests {
    final class ProviderStandIn: Sendable {
        private struct State {
            var received: [(authorization: String?, form: [String: String])] = []
            var status: HTTPResponse.Status = .created
        }

        private let state = Mutex(State())
        var status: HTTPResponse.Status {
            get { state.withLock { $0.status } }
            set { state.withLock { $0.status = newValue } }
        }

        func record(_ authorization: String?, _ body: String) {
            var form: [String: String] = [:]
            for pair in body.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
                }
                if parts.count == 2 { form[parts[0]] = parts[1] }
            }
            state.withLock { $0.received.append((authorization, form)) }
        }

        var requests: [(authorization: String?, form: [String: String])] { state.withLock { $0.received } }
    }

    func withProvider(_ body: @escaping @Sendable (ProviderStandIn, String) async throws -> Void) async throws {
        let provider = ProviderStandIn()
        let router = Router()
        router.post("2010-04-01/Accounts/AC1/Messages.json") { request, context -> Response in
            let buffer = try await request.body.collect(upTo: 64 * 1024)
            provider.record(request.headers[.authorization], String(buffer: buffer))
            return Response(status: provider.status)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: TestDatabase.logger)
        try await app.test(.live) { http in
            try await body(provider, "http://127.0.0.1:\(http.port!)/2010-04-01/Accounts/AC1/Messages.json")
        }
    }

    @Test("form POST with To, From, Body and basic auth; a provider error is thrown for a retry")
    func formPost() async throws {
        try await withProvider { provider, url in
            let sender = HTTPSMSSender(
                settings: .init(url: url, from: "+15550001111", username: "AC1", password: "s3cret"), httpClient: HTTPClient.shared
            )
            let message = OutboundMessage(id: "m1", channel: .sms, recipient: "+41791234567", subject: "", body: "Your code is 123456. Ünïcode & more")
            try await sender.send(message)
            let request = try #require(provider.requests.first)
            #expect(request.form == ["To": "+41791234567", "From": "+15550001111", "Body": "Your code is 123456. Ünïcode & more"])
            #expect(request.authorization == "Basic " + Data("AC1:s3cret".utf8).base64EncodedString())

            provider.status = .internalServerError
            await #expect(throws: SMSProviderError.self) { try await sender.send(message) }
        }
    }

    @Test("an OTP sent by SMS is delivered through the provider")
    func otpBySMS() async throws {
        try await withProvider { provider, url in
            try await withTestRuntime(.sqlite, configure: {
                $0.smsDelivery = .http
                $0.sms = .init(url: url, from: "Tessera")
            }) { runtime in
                let client = try await runtime.makeTestClient()
                _ = try await runtime.otp.send(client: client, channel: .sms, target: "+41 79 765 43 21", purpose: .recovery, ip: nil)
                #expect(await runtime.courier.drain() == 1)
                let form = try #require(provider.requests.first?.form)
                #expect(form["To"] == "+41797654321")
                let code = String(try #require(form["Body"]?.firstMatch(of: /\b(\d{6})\b/)).1)
                #expect(form["Body"]?.contains("recovery") == true)
                let result = try await runtime.otp.verify(client: client, channel: .sms, target: "+41797654321", code: code, purpose: .recovery)
                guard case .valid = result else { Issue.record("SMS code refused: \(result)"); return }
            }
        }
    }
}
