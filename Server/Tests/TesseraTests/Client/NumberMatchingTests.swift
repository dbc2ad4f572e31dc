import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// Number matching against push fatigue, over HTTP: the relying party asks for it and shows the
/// number, the device (the SDK) offers three choices and approves only with the right one.
@Suite("SDK: number matching")
struct NumberMatchingTests {
    static let bundle = "com.example.match"

    /// The relying party's backend over HTTP (client key and secret).
    struct Backend {
        let url: URL
        let credentials: String

        init(url: URL, clientKey: String, secret: String) {
            self.url = url
            credentials = "Basic " + Data("\(clientKey):\(secret)".utf8).base64EncodedString()
        }

        func send(_ method: HTTPMethod, _ path: String, json: String? = nil) async throws -> (status: Int, body: Data) {
            var request = HTTPClientRequest(url: url.absoluteString + path)
            request.method = method
            request.headers.add(name: "Authorization", value: credentials)
            if let json {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: json))
            }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            return (Int(response.status.code), Data(try await response.body.collect(upTo: 1 << 20).readableBytesView))
        }

        /// `POST /v1/rp/auth-requests`: the answer's JSON object and its decoded state.
        func ask(_ userKey: String, numberMatching: Bool?) async throws -> (object: [String: Any], state: RPAuthState) {
            let flag = numberMatching.map { #","numberMatching":\#($0)"# } ?? ""
            let answer = try await send(.POST, "/v1/rp/auth-requests", json: #"{"userKey":"\#(userKey)","connectIp":"203.0.113.9","message":"Shop"\#(flag)}"#)
            #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
            let object = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
            return (object, try JSONDecoder().decode(RPAuthState.self, from: answer.body))
        }

        func state(_ id: String) async throws -> RPAuthState {
            let answer = try await send(.GET, "/v1/rp/auth-requests/\(id)")
            #expect(answer.status == 200)
            return try JSONDecoder().decode(RPAuthState.self, from: answer.body)
        }
    }

    /// The request the device sees for `requestId`.
    static func pending(_ tessera: TesseraClient, _ requestId: String) async throws -> AuthChannelResponse {
        try #require(try await tessera.pendingAuthRequests().first { $0.channelId == requestId })
    }

    @Test("the right number yields the token; a wrong or missing number ends the request as failed (5011) with no token and no second guess")
    func relyingPartyNumberMatching() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "nina", bundleId: Self.bundle)
            let backend = Backend(url: url, clientKey: client.clientKey, secret: try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret)

            // The right number: the token reaches the relying party.
            let right = try await backend.ask("nina", numberMatching: true)
            let number = try #require(right.state.matchNumber)
            #expect(number.count == 2 && (10...99).contains(Int(number) ?? 0), "\(number)")
            let offered = try await Self.pending(tessera, right.state.requestId)
            let choices = try #require(offered.numberChoices)
            #expect(choices.count == 3 && Set(choices).count == 3 && choices.contains(number), "\(choices)")
            let token = try await tessera.authenticate(channel: offered, matchNumber: number, localAuthenticator: LiveServer.pin, reason: "Approve")
            let completed = try await backend.state(right.state.requestId)
            #expect(completed.outcome == .completed && completed.token == token)

            // A wrong number (one of the decoys): failed with its own code, no token, and the right number is refused afterwards.
            let wrong = try await backend.ask("nina", numberMatching: true)
            let wrongOffer = try await Self.pending(tessera, wrong.state.requestId)
            let decoy = try #require(wrongOffer.numberChoices?.first { $0 != wrong.state.matchNumber })
            await AuthenticatorPolicyTests.expectRefused(.authNumberMismatch) {
                _ = try await tessera.authenticate(channel: wrongOffer, matchNumber: decoy, localAuthenticator: LiveServer.pin, reason: "Approve")
            }
            let failed = try await backend.state(wrong.state.requestId)
            #expect(failed.outcome == .failed && failed.code == ErrorCode.authNumberMismatch.rawValue && failed.token == nil, "\(failed)")
            await AuthenticatorPolicyTests.expectRefused(.authChannelState) {
                _ = try await tessera.authenticate(channel: wrongOffer, matchNumber: wrong.state.matchNumber, localAuthenticator: LiveServer.pin, reason: "Approve")
            }
            #expect(try await backend.state(wrong.state.requestId).token == nil)
            #expect(try await tessera.pendingAuthRequests().isEmpty)

            // No number at all: the same ending.
            let missing = try await backend.ask("nina", numberMatching: true)
            let missingOffer = try await Self.pending(tessera, missing.state.requestId)
            await AuthenticatorPolicyTests.expectRefused(.authNumberMismatch) {
                _ = try await tessera.authenticate(channel: missingOffer, localAuthenticator: LiveServer.pin, reason: "Approve")
            }
            let ended = try await backend.state(missing.state.requestId)
            #expect(ended.outcome == .failed && ended.code == ErrorCode.authNumberMismatch.rawValue && ended.token == nil, "\(ended)")

            // Without number matching (flag absent or false): no number, no choices, approval as before.
            for flag in [nil, false] as [Bool?] {
                let plain = try await backend.ask("nina", numberMatching: flag)
                #expect(plain.object["matchNumber"] == nil)
                let plainOffer = try await Self.pending(tessera, plain.state.requestId)
                #expect(plainOffer.numberChoices == nil)
                let plainToken = try await tessera.authenticate(channel: plainOffer, localAuthenticator: LiveServer.pin, reason: "Approve")
                #expect(try await backend.state(plain.state.requestId).token == plainToken)
            }
        }
    }
}
