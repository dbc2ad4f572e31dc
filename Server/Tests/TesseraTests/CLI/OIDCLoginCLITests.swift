import AsyncHTTPClient
import Foundation
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// `tessera rp oidc-login` as a separate program against a live server: the test plays the browser
/// on the hosted page with plain HTTP (as Tests/Fixtures/oidc_client.py does), a device enrolled
/// through the SDK approves, and the redirect lands on the command's loopback listener.
@Suite("CLI: tessera rp oidc-login")
struct OIDCLoginCLITests {
    static let bundle = "com.example.oidccli"

    /// A running `tessera rp oidc-login` and what it printed up to its "waiting for the redirect" line.
    struct Login {
        var process: ChildProcess
        var printed: String
        /// The authorize URL it printed.
        var url: URLComponents

        func parameter(_ name: String) -> String? { url.queryItems?.first { $0.name == name }?.value }

        /// Waits for the end and returns the exit status and everything it printed.
        func finish() async throws -> (status: Int32, output: String) {
            let printed = printed
            let finished = try await RelyingPartyCLITests.finish(process)
            return (finished.status, printed + finished.output)
        }
    }

    /// Starts the command and reads its output until it waits for the redirect.
    static func start(_ binary: URL, _ arguments: [String]) async throws -> Login {
        let process = try RelyingPartyCLITests.start(binary, ["rp", "oidc-login"] + arguments)
        let printed = await ChildProcess.onOwnThread {
            var text = ""
            while !text.contains("waiting for the redirect") {
                let chunk = ChildProcess.readSome(process.output!)
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        let line = try #require(printed.split(separator: "\n").first { $0.contains("/oauth2/authorize?") }, "\(printed)")
        return Login(process: process, printed: printed, url: try #require(URLComponents(string: String(line))))
    }

    static func match(_ text: String, _ pattern: Regex<(Substring, Substring)>) throws -> String {
        String(try #require(text.firstMatch(of: pattern)?.1, "\(text)")).replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test("prints the authorize URL, takes the redirect after the page and the device, verifies the ID token and prints its claims")
    func signIn() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let device = try await LiveServer.enrol(runtime, client, url, userKey: "quinn", bundleId: Self.bundle)
            let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret
            let login = try await Self.start(binary, [
                "--issuer", runtime.tokens.issuer, "--server", url.absoluteString, "--client-id", client.clientKey, "--client-secret", secret,
                "--timeout", "300",
            ])
            let redirect = try #require(login.parameter("redirect_uri"))
            #expect(redirect.hasPrefix("http://127.0.0.1:") && redirect.hasSuffix("/callback"))
            #expect(login.parameter("code_challenge_method") == "S256" && login.parameter("scope") == "openid email")
            let nonce = try #require(login.parameter("nonce"))
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [redirect]), clientKey: client.clientKey)

            // The browser: the page, its form, the device's approval, the status, the redirect.
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            defer { _ = http.shutdown() }
            let page = try await OIDCFlowTests.send(http, try #require(login.url.string))
            #expect(page.status == 200, "\(page.body)")
            let action = try Self.match(page.body, /<form method="post" action="([^"]+)"/)
            let csrf = try Self.match(page.body, /name="csrf" value="([^"]+)"/)
            let waiting = try await OIDCFlowTests.send(http, url.absoluteString + action, form: ["csrf": csrf, "identifier": "quinn@example.com"])
            #expect(waiting.status == 200, "\(waiting.body)")
            let statusURL = try Self.match(waiting.body, /data-status-url="([^"]+)"/)
            let completeURL = try Self.match(waiting.body, /data-complete-url="([^"]+)"/)
            let pending = try #require(await eventually { try? await device.pendingAuthRequests().first })
            _ = try await device.authenticate(channel: pending, localAuthenticator: LiveServer.pin, reason: "Approve")
            var status = "waiting"
            while status == "waiting" || status == "verifying" {
                let answer = try await OIDCFlowTests.send(http, url.absoluteString + statusURL + "&wait=25")
                status = (try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: String])?["status"] ?? "?"
            }
            #expect(status == "approved")
            let complete = try await OIDCFlowTests.send(http, url.absoluteString + completeURL)
            #expect(complete.status == 302)
            let callback = try #require(complete.headers["Location"].first)
            #expect(callback.hasPrefix(redirect + "?"))
            let landed = try await OIDCFlowTests.send(http, callback)
            #expect(landed.status == 200 && landed.body.contains("Signed in"), "\(landed.body)")

            let run = try await login.finish()
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("ID token verified: ES256 signature through the JWKS, iss, aud, exp, nonce"), "\(run.output)")
            let json = try #require(run.output.firstIndex(of: "{").map { run.output[$0...] }, "\(run.output)")
            let claims = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(run.output)")
            #expect(claims["sub"] as? String == "quinn")
            #expect(claims["aud"] as? String == client.clientKey || (claims["aud"] as? [String]) == [client.clientKey])
            #expect(claims["nonce"] as? String == nonce)
            #expect(claims["iss"] as? String == runtime.tokens.issuer)
            #expect(claims["amr"] as? [String] == ["hwk", "pin"])
        }
    }

    @Test("a redirect with another state is refused; other paths on the listener get 404")
    func foreignState() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let login = try await Self.start(binary, [
                "--issuer", runtime.tokens.issuer, "--server", url.absoluteString, "--client-id", client.clientKey, "--client-secret", "secret",
            ])
            let redirect = try #require(login.parameter("redirect_uri"))
            let listener = try #require(redirect.firstRange(of: "/callback").map { String(redirect[..<$0.lowerBound]) })
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            defer { _ = http.shutdown() }
            let other = try await OIDCFlowTests.send(http, listener + "/favicon.ico")
            #expect(other.status == 404)
            let forged = try await OIDCFlowTests.send(http, redirect + "?code=stolen&state=forged")
            #expect(forged.status == 200)
            let run = try await login.finish()
            #expect(run.status == 3, "\(run.output)")
            #expect(run.output.contains("the redirect's state does not match"), "\(run.output)")
        }
    }
}
