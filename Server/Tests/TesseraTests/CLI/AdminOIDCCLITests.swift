import AsyncHTTPClient
import Foundation
import Testing
@testable import TesseraServer

/// `tessera admin client oidc set|show` against a running server, through its admin API.
@Suite("CLI: tessera admin client oidc")
struct AdminOIDCCLITests {
    @Test("set stores the redirect URIs, show prints them, the authorize endpoint accepts them; a bad URI is refused")
    func setAndShow() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serve { dataDir, admin, url in
            let created = try await DeviceCLITests.run(tessera, ["admin", "client", "create", "--name", "Web", "--bundle-id", "com.example.web"] + admin)
            let clientKey = String(try #require(created.output.firstMatch(of: /client key:\s+(tck_\S+)/)?.1, "\(created.output)"))
            let set = try await DeviceCLITests.run(
                tessera, ["admin", "client", "oidc", "set", clientKey, "--redirect-uri", "https://app.example.com/cb", "--data-dir", dataDir] + admin
            )
            #expect(set.status == 0, "\(set.output)")
            let shown = try await DeviceCLITests.run(tessera, ["admin", "client", "oidc", "show", clientKey, "--json"] + admin)
            #expect(shown.status == 0, "\(shown.output)")
            #expect(shown.output.contains("https:\\/\\/app.example.com\\/cb") || shown.output.contains("https://app.example.com/cb"), "\(shown.output)")
            let refused = try await DeviceCLITests.run(tessera, ["admin", "client", "oidc", "set", clientKey, "--redirect-uri", "/relative"] + admin)
            #expect(refused.status != 0, "\(refused.output)")
            // The running server takes the redirect URI at once: its sign-in page opens.
            let challenge = OIDCService.challenge(of: String(repeating: "v", count: 43))
            let page = try await HTTPClient.shared.execute(
                HTTPClientRequest(
                    url: url.appendingPathComponent("oauth2/authorize").absoluteString + "?client_id=\(clientKey)&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb"
                        + "&response_type=code&scope=openid&code_challenge=\(challenge)&code_challenge_method=S256"
                ),
                timeout: .seconds(30)
            )
            #expect(page.status == .ok)
        }
    }
}
