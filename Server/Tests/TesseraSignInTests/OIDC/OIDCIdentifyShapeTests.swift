import Foundation
import SQLKit
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// The hosted page must not tell by its timing whether an account exists: the identifier step runs
/// the same statements, in the same transactions, for a known and an unknown account (what it costs is
/// measured by bench/oidc-timing.sh, not here), and for the unknown one writes no channel.
@Suite("OIDC: identify does the same work for known and unknown accounts")
struct OIDCIdentifyShapeTests {
    @Test("the same statements in the same transactions; no channel for the unknown account", arguments: TestDatabase.kinds)
    func sameStatements(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }, wrapDatabase: { RecordingDatabase($0) }) { runtime in
            let recorder = try #require(runtime.database as? RecordingDatabase)
            let (_, log) = AsyncStream<AuthEvent>.makeStream()
            let setup = try await AuthProgressTests.setUp(runtime, clock: runtime.clock, log: log, timeout: .seconds(60))
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [OIDCEventStreamTests.redirect]), clientKey: setup.client.clientKey)
            var work: [[String]] = [], requests: [String] = []
            // By e-mail address, then by user key: a known account, then an unknown one (each from its own address).
            for (index, identifier) in [OIDCEventStreamTests.email, "nobody@example.com", "progress", "nobody-else"].enumerated() {
                let query = [
                    "client_id": setup.client.clientKey, "redirect_uri": OIDCEventStreamTests.redirect, "response_type": "code", "scope": "openid",
                    "code_challenge": OIDCService.challenge(of: String(repeating: "w", count: 43)), "code_challenge_method": "S256",
                ]
                guard case .page(let pending, let csrf, _, _) = try await runtime.oidc.authorize(query) else { throw ConfigurationError("no page") }
                work.append(try await recorder.recording {
                    _ = try await runtime.oidc.identify(pending.id, csrf: csrf, identifier: identifier, ip: "192.0.2.\(index + 1)")
                })
                requests.append(pending.id)
            }
            #expect(work[0].contains { $0.hasPrefix("INSERT INTO auth_channels") }, "\(work[0])")
            for (known, unknown) in [(work[0], work[1]), (work[2], work[3])] {
                #expect(unknown == known, "unknown:\n\(unknown.joined(separator: "\n"))\nknown:\n\(known.joined(separator: "\n"))")
            }
            // Only the known account got a channel.
            var channels: [String?] = []
            for id in requests { channels.append(try await runtime.repositories.oidc.request(id)?.channelId) }
            #expect(channels[0] != nil && channels[2] != nil && channels[1] == nil && channels[3] == nil, "\(channels)")
            let count = try await recorder.inner.withSQL { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM auth_channels").first()?.decode(column: "n", as: Int.self)
            }
            #expect(count == 2)
        }
    }
}
