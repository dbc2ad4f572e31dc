import Foundation
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// Number matching through the CLI: `tessera admin client oidc set --number-matching` over the admin
/// API, and `tessera device approve --number`.
@Suite("CLI: number matching")
struct NumberMatchingCLITests {
    static let bundle = "com.example.matchcli"

    @Test("admin: set --number-matching turns it on (show and the admin API say so); set without it turns it off")
    func adminSetting() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serve { _, admin, _ in
            let created = try await DeviceCLITests.run(tessera, ["admin", "client", "create", "--name", "Web", "--bundle-id", "com.example.web"] + admin)
            let clientKey = String(try #require(created.output.firstMatch(of: /client key:\s+(tck_\S+)/)?.1, "\(created.output)"))
            let set = try await DeviceCLITests.run(
                tessera, ["admin", "client", "oidc", "set", clientKey, "--redirect-uri", "https://app.example.com/cb", "--number-matching"] + admin
            )
            #expect(set.status == 0 && set.output.contains("number matching: on"), "\(set.output)")
            let shown = try await DeviceCLITests.run(tessera, ["admin", "client", "oidc", "show", clientKey, "--json"] + admin)
            #expect(shown.status == 0 && shown.output.contains(#""numberMatching" : true"#), "\(shown.output)")
            let off = try await DeviceCLITests.run(tessera, ["admin", "client", "oidc", "set", clientKey, "--redirect-uri", "https://app.example.com/cb"] + admin)
            #expect(off.status == 0 && off.output.contains("number matching: off"), "\(off.output)")
            let again = try await DeviceCLITests.run(tessera, ["admin", "client", "oidc", "show", clientKey, "--json"] + admin)
            #expect(again.output.contains(#""numberMatching" : false"#), "\(again.output)")
        }
    }

    @Test("rp authenticate --number-matching prints the number; device approve without --number lists the choices and fails naming it, leaving the request; with it, approves")
    func deviceApprove() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let deviceDir = FileManager.default.temporaryDirectory.appendingPathComponent("nm-cli-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: deviceDir) }
            let signup = try await DeviceCLITests.run(binary, [
                "device", "signup", "--device-dir", deviceDir, "--server", url.absoluteString, "--client-key", client.clientKey,
                "--bundle-id", Self.bundle, "--otp-from-outbox", runtime.configuration.dataDirectory, "--pin", "246813",
                "--email", "nm@example.com", "--phone", "+41795550778", "--user-key", "nm-user", "--name", "NM User",
            ])
            #expect(signup.status == 0, "\(signup.output)")
            let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret
            let relyingParty = try RelyingPartyCLITests.start(binary, [
                "rp", "authenticate", "--server", url.absoluteString, "--client-key", client.clientKey, "--client-secret", secret,
                "--user-key", "nm-user", "--number-matching", "--timeout", "60",
            ])
            let users = runtime.repositories.users
            let user = try #require(try await runtime.database.read { sql -> UserRecord? in try await users.find(clientId: client.id, userKey: "nm-user", in: sql) })
            let store = runtime.auth.channels.store, clock = runtime.clock
            let request = try #require(await eventually { try? await store.pending(userId: user.id, now: clock.now()).first })
            let number = try #require(request.numberMatch?.number)
            let approve = ["device", "approve", "--device-dir", deviceDir, "--pin", "246813", "--wait", "20"]
            let refused = try await DeviceCLITests.run(binary, approve)
            #expect(refused.status == 3 && refused.output.contains("--number") && refused.output.contains(number), "\(refused.output)")
            // The number came from `tessera rp authenticate`, not from the OpenID Connect sign-in page.
            #expect(refused.output.contains("the relying party shows") && !refused.output.contains("sign-in page"), "\(refused.output)")
            #expect(try await store.find(request.id)?.outcome == .pending)
            let approved = try await DeviceCLITests.run(binary, approve + ["--number", number])
            #expect(approved.status == 0 && approved.output.contains("authenticated"), "\(approved.output)")
            let finished = try await RelyingPartyCLITests.finish(relyingParty)
            #expect(finished.status == 0 && finished.output.contains("show the user \(number)"), "\(finished.output)")
            #expect(finished.output.contains("result token verified with the server's JWKS"), "\(finished.output)")
        }
    }
}
