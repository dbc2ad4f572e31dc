import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// The hosted page's progress stream (`GET /oauth2/authorize/{id}/events`) read over HTTP from a live
/// server on SQLite and PostgreSQL. The device is the server's own device flow over verifier nodes the
/// test holds back (``AuthProgressTests``), so each node step is seen while it happens; time is a
/// ``ManualClock``, so expiry comes when the test moves it.
@Suite("OIDC: the sign-in page's event stream")
struct OIDCEventStreamTests {
    static let redirect = "http://127.0.0.1:9/callback"
    static let email = "progress@example.com"

    typealias Setup = (flow: DeviceAuthFlow, nodes: [AuthProgressTests.HeldNode], client: Client, deviceId: String, deviceKey: P256.Signing.PrivateKey)

    /// A live server over `kind` with its background services, a user with a device (the flow over
    /// held nodes) and a client whose OIDC settings name ``redirect``.
    static func withLiveServer(
        _ kind: TestDatabase, clock: ManualClock, userVerificationKey: P256.Signing.PrivateKey = P256.Signing.PrivateKey(),
        _ body: @escaping @Sendable (TesseraRuntime, Setup, HTTPClient, String) async throws -> Void
    ) async throws {
        try await withTestRuntime(kind, clock: clock.clock, configure: { $0.embeddedNodes = 0; $0.channelLifetime = .seconds(30) }) { runtime in
            let (_, log) = AsyncStream<AuthEvent>.makeStream()
            let setup = try await AuthProgressTests.setUp(
                runtime, clock: clock.clock, log: log, timeout: .seconds(3600), userVerificationKey: userVerificationKey
            )
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect]), clientKey: setup.client.clientKey)
            let app = Application(
                router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                services: runtime.backgroundServices, logger: TestDatabase.logger
            )
            try await app.test(.live) { server in
                let http = HTTPClient(eventLoopGroupProvider: .singleton)
                do {
                    try await body(runtime, setup, http, "http://127.0.0.1:\(server.port ?? 0)")
                } catch {
                    try? await http.shutdown()
                    throw error
                }
                try await http.shutdown()
            }
        }
    }

    /// A pending authorization with `identifier` entered (as the page's form does), and its events URL.
    static func signIn(_ runtime: TesseraRuntime, _ client: Client, base: String, identifier: String) async throws -> (id: String, csrf: String, events: String) {
        let query = [
            "client_id": client.clientKey, "redirect_uri": Self.redirect, "response_type": "code", "scope": "openid", "state": "s-1",
            "code_challenge": OIDCService.challenge(of: String(repeating: "v", count: 43)), "code_challenge_method": "S256",
        ]
        guard case .page(let pending, let csrf, _, _) = try await runtime.oidc.authorize(query) else { throw ConfigurationError("no page") }
        _ = try await runtime.oidc.identify(pending.id, csrf: csrf, identifier: identifier, ip: "127.0.0.1")
        let escaped = csrf.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? csrf
        return (pending.id, csrf, "\(base)/oauth2/authorize/\(pending.id)/events?csrf=\(escaped)")
    }

    static func status(_ status: String, step: AuthStatus? = nil) -> EventStreamClient.Event {
        EventStreamClient.Event(name: "status", data: step.map { #"{"status":"\#(status)","step":"\#($0.rawValue)"}"# } ?? #"{"status":"\#(status)"}"#)
    }

    static func outcome(_ status: String) -> EventStreamClient.Event { EventStreamClient.Event(name: "outcome", data: #"{"status":"\#(status)"}"#) }

    @Test("approved: waiting, then each node step as it happens, then approved and the end; a new connection gets approved at once",
          .timeLimit(.minutes(2)), arguments: TestDatabase.kinds)
    func approved(kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        let userVerificationKey = P256.Signing.PrivateKey()
        try await Self.withLiveServer(kind, clock: manual, userVerificationKey: userVerificationKey) { runtime, setup, http, base in
            let signIn = try await Self.signIn(runtime, setup.client, base: base, identifier: Self.email)
            var stream = try await EventStreamClient(http, url: signIn.events)
            #expect(stream.status == 200)
            #expect(stream.contentType == "text/event-stream")
            #expect(stream.cacheControl == "no-store")
            #expect(try await stream.next() == Self.status("waiting"))

            let channel = try #require(try await setup.flow.pending(deviceId: setup.deviceId, client: setup.client).requests.first)
            let start = try AuthProgressTests.challengeSignature(setup.deviceKey, channel: channel, deviceId: setup.deviceId)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    _ = try await setup.flow.start(channelId: channel.channelId, deviceId: setup.deviceId, client: setup.client, request: start)
                }
                // The nodes are held: these two arrive while the device's start is still under way.
                #expect(try await stream.next() == Self.status("verifying", step: .selectNodes))
                #expect(try await stream.next() == Self.status("verifying", step: .startVerificationOfNodes))
                for node in setup.nodes { node.gate.release(.attest) }
                try await group.waitForAll()
            }
            #expect(try await stream.next() == Self.status("verifying", step: .completeVerificationOfNodes))
            let statement = AuthStatement.userVerification(channelId: channel.channelId, deviceId: setup.deviceId, challenge: channel.challenge)
            _ = try await setup.flow.complete(
                channelId: channel.channelId, deviceId: setup.deviceId, client: setup.client,
                request: AuthResultRequest(
                    isSecondaryCertification: true, userVerificationSignature: try userVerificationKey.signature(for: statement).rawRepresentation.base64EncodedString()
                )
            )
            #expect(try await stream.next() == Self.outcome("approved"))
            #expect(try await stream.next() == nil, "the stream ends after the outcome")

            // EventSource reconnects: the sign-in has ended, so the final state comes at once, alone.
            var again = try await EventStreamClient(http, url: signIn.events)
            #expect(try await again.rest() == [Self.outcome("approved")])
            // The JSON status endpoint agrees.
            #expect(try await runtime.oidc.progress(signIn.id, csrf: signIn.csrf, wait: .zero) == .approved)
        }
    }

    @Test("declined on the device: waiting, then declined and the end; a new connection gets declined at once",
          .timeLimit(.minutes(2)), arguments: TestDatabase.kinds)
    func declined(kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await Self.withLiveServer(kind, clock: manual) { runtime, setup, http, base in
            let signIn = try await Self.signIn(runtime, setup.client, base: base, identifier: Self.email)
            var stream = try await EventStreamClient(http, url: signIn.events)
            #expect(try await stream.next() == Self.status("waiting"))
            let channel = try #require(try await setup.flow.pending(deviceId: setup.deviceId, client: setup.client).requests.first)
            try await setup.flow.end(channelId: channel.channelId, deviceId: setup.deviceId, client: setup.client, outcome: .declined)
            #expect(try await stream.rest() == [Self.outcome("declined")])
            var again = try await EventStreamClient(http, url: signIn.events)
            #expect(try await again.rest() == [Self.outcome("declined")])
        }
    }

    @Test("no such user and a user who does not answer: the same waiting, both expired when the channel lifetime passes on the clock",
          .timeLimit(.minutes(2)), arguments: TestDatabase.kinds)
    func expiresAlike(kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await Self.withLiveServer(kind, clock: manual) { runtime, setup, http, base in
            let known = try await Self.signIn(runtime, setup.client, base: base, identifier: Self.email)
            let unknown = try await Self.signIn(runtime, setup.client, base: base, identifier: "nobody@example.com")
            var knownStream = try await EventStreamClient(http, url: known.events)
            var unknownStream = try await EventStreamClient(http, url: unknown.events)
            #expect(try await knownStream.next() == Self.status("waiting"))
            #expect(try await unknownStream.next() == Self.status("waiting"))
            // Each stream waits for the end of the channel's lifetime on the clock; then it passes.
            #expect(await eventually { manual.waitingSleepers == 2 })
            manual.advance(by: .seconds(31))
            #expect(try await knownStream.rest() == [Self.outcome("expired")])
            #expect(try await unknownStream.rest() == [Self.outcome("expired")])
            for url in [known.events, unknown.events] {
                var again = try await EventStreamClient(http, url: url)
                #expect(try await again.rest() == [Self.outcome("expired")])
            }
        }
    }

    @Test("a wrong csrf or an unknown sign-in: 404 problem 8101, no stream", arguments: TestDatabase.kinds)
    func refused(kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await Self.withLiveServer(kind, clock: manual) { runtime, setup, http, base in
            let signIn = try await Self.signIn(runtime, setup.client, base: base, identifier: Self.email)
            for url in [
                "\(base)/oauth2/authorize/\(signIn.id)/events?csrf=csrf_wrong", "\(base)/oauth2/authorize/\(signIn.id)/events",
                "\(base)/oauth2/authorize/oar_unknown/events?csrf=csrf_wrong",
            ] {
                var answer = try await EventStreamClient(http, url: url)
                #expect(answer.status == 404, "\(url)")
                #expect(answer.contentType == "application/problem+json", "\(url)")
                let problem = try JSONSerialization.jsonObject(with: Data(try await answer.body().utf8)) as? [String: Any]
                #expect(problem?["code"] as? Int == ErrorCode.oidcAuthorizationUnknown.rawValue, "\(url)")
            }
        }
    }

    @Test("the waiting page follows the stream with EventSource and keeps the no-script link")
    func waitingPage() {
        let html = SignInPage(content: .waiting(requestId: "oar_1", csrf: "csrf_a+b", branding: ClientBranding(name: "App")), nonce: "n1").html
        #expect(html.contains(#"data-events-url="/oauth2/authorize/oar_1/events?csrf=csrf%5Fa%2Bb""#), "\(html)")
        #expect(html.contains("new EventSource(el.dataset.eventsUrl)"))
        #expect(html.contains(#"<script nonce="n1">"#))
        #expect(html.contains(#"<noscript><p><a href="/oauth2/authorize/oar_1/complete?csrf=csrf%5Fa%2Bb">"#))
    }
}
