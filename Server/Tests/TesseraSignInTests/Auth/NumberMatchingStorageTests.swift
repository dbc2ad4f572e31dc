import Foundation
import Synchronization
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// Number matching's storage on SQLite and PostgreSQL: the number a relying-party request shows and
/// the choices its device is offered live with the channel; the hosted page's per-client switch
/// lives with the client's OIDC settings. The draw itself from a fixed random source.
@Suite("Number matching: storage and draw")
struct NumberMatchingStorageTests {
    @Test("a request with number matching stores its number and three choices; one without stores none", arguments: TestDatabase.kinds)
    func channelKeepsTheNumber(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let fixture = try await PushFixtures.user(runtime, client: try await runtime.makeTestClient(), name: "nm-\(kind.rawValue)")
            let flow = runtime.auth.relyingParty
            let matched = try await flow.create(
                client: fixture.client, request: RPAuthRequest(userKey: fixture.userKey, connectIp: "192.0.2.1", message: "", numberMatching: true)
            )
            let number = try #require(matched.matchNumber)
            #expect(number.count == 2 && (10...99).contains(Int(number) ?? 0), "\(number)")
            let stored = try #require(try await runtime.auth.channels.store.find(matched.requestId)?.numberMatch)
            #expect(stored.number == number)
            #expect(stored.choices.count == 3 && Set(stored.choices).count == 3 && stored.choices.contains(number), "\(stored.choices)")
            #expect(stored.choices.allSatisfy { $0.count == 2 && (10...99).contains(Int($0) ?? 0) }, "\(stored.choices)")
            // The long-poll answer repeats the number; the device's pending list offers the same choices every time.
            #expect(try await flow.state(client: fixture.client, id: matched.requestId, wait: .zero).matchNumber == number)
            let pending = try await runtime.auth.channels.store.pending(userId: fixture.userId, now: runtime.clock.now())
            #expect(pending.first { $0.id == matched.requestId }?.numberMatch == stored)

            let plain = try await flow.create(
                client: fixture.client, request: RPAuthRequest(userKey: fixture.userKey, connectIp: "192.0.2.1", message: "")
            )
            #expect(plain.matchNumber == nil)
            #expect(try await runtime.auth.channels.store.find(plain.requestId)?.numberMatch == nil)
        }
    }

    @Test("the hosted page's number-matching switch round-trips with the client's OIDC settings", arguments: TestDatabase.kinds)
    func oidcSetting(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            #expect(try await runtime.oidc.settings(clientKey: client.clientKey).numberMatching == false)
            let uris = ["https://app.example.com/callback"]
            _ = try await runtime.oidc.setSettings(.init(redirectUris: uris, numberMatching: true), clientKey: client.clientKey)
            #expect(try await runtime.oidc.settings(clientKey: client.clientKey) == .init(redirectUris: uris, numberMatching: true))
            _ = try await runtime.oidc.setSettings(.init(redirectUris: uris), clientKey: client.clientKey)
            #expect(try await runtime.oidc.settings(clientKey: client.clientKey).numberMatching == false)
        }
    }

    @Test("wire: numberMatching missing decodes as false, and the new fields stay out of answers that do not use them")
    func wireDefaults() throws {
        let settings = try JSONDecoder().decode(OIDCClientSettings.self, from: Data(#"{"redirectUris":["https://a.example/cb"]}"#.utf8))
        #expect(settings == OIDCClientSettings(redirectUris: ["https://a.example/cb"], numberMatching: false))
        let request = try JSONDecoder().decode(RPAuthRequest.self, from: Data(#"{"userKey":"u","connectIp":"","message":""}"#.utf8))
        #expect(request.numberMatching == false)
        let asked = try JSONDecoder().decode(RPAuthRequest.self, from: Data(#"{"userKey":"u","connectIp":"","message":"","numberMatching":true}"#.utf8))
        #expect(asked.numberMatching)
        // An explicit null is not a boolean: refused (schemathesis found it accepted as false).
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(OIDCClientSettings.self, from: Data(#"{"redirectUris":[],"numberMatching":null}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(RPAuthRequest.self, from: Data(#"{"userKey":"u","connectIp":"","message":"","numberMatching":null}"#.utf8))
        }
        // The logout settings likewise: missing is none, null is a wrong type.
        for field in ["postLogoutRedirectUris", "backchannelLogoutUri", "idTokenSignedResponseAlg"] {
            #expect(throws: DecodingError.self, "\(field)") {
                try JSONDecoder().decode(OIDCClientSettings.self, from: Data(#"{"redirectUris":[],"\#(field)":null}"#.utf8))
            }
        }
        let channel = AuthChannelResponse(channelId: "ch", challenge: "c", authType: "pin", connectIp: "", message: "", userKey: "u", clientKey: "k", expiresIn: 1)
        #expect(!String(decoding: try JSONEncoder().encode(channel), as: UTF8.self).contains("numberChoices"))
        let state = RPAuthState(requestId: "r", outcome: .pending, code: nil, token: nil, expiresIn: 1)
        #expect(!String(decoding: try JSONEncoder().encode(state), as: UTF8.self).contains("matchNumber"))
    }

    /// Random bytes from a list, then zeros.
    static func source(_ values: [UInt32]) -> RandomSource {
        let queue = Mutex(values)
        return RandomSource { count in
            let value = queue.withLock { $0.isEmpty ? 0 : $0.removeFirst() }
            return withUnsafeBytes(of: value) { Array($0) } + [UInt8](repeating: 0, count: max(0, count - 4))
        }
    }

    @Test("the draw: the number from the first value, two distinct decoys (a repeat is drawn again), the number's place from the source")
    func draw() {
        // 37 → 47; 37 again is a repeat, skipped; 2 → 12; 80 → 90; place 1.
        let match = NumberMatch.draw(Self.source([37, 37, 2, 80, 1]))
        #expect(match == NumberMatch(number: "47", choices: ["12", "47", "90"]))
        #expect(NumberMatch.draw(Self.source([37, 2, 80, 2])).choices == ["12", "90", "47"])
        #expect(NumberMatch.draw(Self.source([37, 2, 80, 0])).choices == ["47", "12", "90"])
        // Values past the last whole multiple of the range are rejected, not folded (no modulo bias).
        #expect(NumberMatch.draw(Self.source([UInt32.max, 37, 2, 80, 0])).number == "47")
        #expect(match.accepts("47"))
        for wrong in ["12", "90", "", "047", "47 ", nil] as [String?] { #expect(!match.accepts(wrong), "\(wrong ?? "nil")") }
    }
}
