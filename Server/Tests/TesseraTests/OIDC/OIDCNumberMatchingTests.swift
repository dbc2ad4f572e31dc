import AsyncHTTPClient
import Foundation
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// Number matching on the hosted sign-in page, over plain HTTP: with the client's switch on, the
/// waiting page shows the two digits the phone offers among its choices, for an unknown user too.
@Suite("OpenID Connect: number matching on the hosted page")
struct OIDCNumberMatchingTests {
    static let bundle = "com.example.oidc-match"

    /// A sign-in up to the waiting page: its HTML and its status and completion URLs.
    struct Waiting {
        var page: OIDCFlowTests.Answer
        var statusURL: String
        var completeURL: String

        /// The number in `#match-number`, if the page shows one.
        var matchNumber: String? {
            guard let match = page.body.firstMatch(of: /id="match-number">([^<]*)</) else { return nil }
            return String(match.1)
        }
    }

    static func signIn(_ http: HTTPClient, _ url: URL, clientKey: String, identifier: String) async throws -> Waiting {
        let page = try await OIDCFlowTests.send(http, OIDCFlowTests.authorizeURL(url, clientKey: clientKey))
        let action = try #require(page.body.firstMatch(of: /action="([^"]+)"/)?.1)
        let csrf = try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
        let identify = try await OIDCFlowTests.send(http, url.absoluteString + action, form: ["csrf": String(csrf), "identifier": identifier])
        #expect(identify.status == 200)
        let status = try #require(identify.body.firstMatch(of: /data-status-url="([^"]+)"/)?.1).replacing("&amp;", with: "&")
        let complete = try #require(identify.body.firstMatch(of: /data-complete-url="([^"]+)"/)?.1).replacing("&amp;", with: "&")
        return Waiting(page: identify, statusURL: url.absoluteString + status, completeURL: url.absoluteString + complete)
    }

    @Test("the page shows the number the phone offers; the right pick leads to a code, a wrong one ends as mismatch; an unknown user's page looks the same")
    func hostedPage() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "rosa", bundleId: Self.bundle)
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [OIDCFlowTests.redirect], numberMatching: true), clientKey: client.clientKey)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            defer { _ = http.shutdown() }

            let known = try await Self.signIn(http, url, clientKey: client.clientKey, identifier: "rosa@example.com")
            let number = try #require(known.matchNumber, "\(known.page.body)")
            #expect(number.count == 2 && (10...99).contains(Int(number) ?? 0), "\(number)")
            #expect(known.page.body.contains("Tap <strong id=\"match-number\">\(number)</strong> on your phone"))
            let offered = try #require(try await tessera.pendingAuthRequests().first)
            #expect(offered.numberChoices?.contains(number) == true && offered.numberChoices?.count == 3, "\(offered.numberChoices ?? [])")
            _ = try await tessera.authenticate(channel: offered, matchNumber: number, localAuthenticator: LiveServer.pin, reason: "Approve")
            #expect(try await OIDCFlowTests.send(http, known.statusURL + "&wait=0").body == #"{"status":"approved"}"#)
            let complete = try await OIDCFlowTests.send(http, known.completeURL)
            #expect(complete.status == 302)
            let location = try #require(complete.headers["Location"].first)
            #expect(location.hasPrefix(OIDCFlowTests.redirect + "?code=oc_") && location.hasSuffix("&state=st-1"), "\(location)")

            // Someone without an account: a two-digit number too, and otherwise the same page.
            let unknown = try await Self.signIn(http, url, clientKey: client.clientKey, identifier: "nobody@example.com")
            let decoy = try #require(unknown.matchNumber, "\(unknown.page.body)")
            #expect(decoy.count == 2 && (10...99).contains(Int(decoy) ?? 0), "\(decoy)")
            func blanked(_ html: String) -> String { OIDCFlowTests.normalized(html).replacing(/id="match-number">\d\d</, with: "id=\"match-number\">NN<") }
            #expect(blanked(known.page.body) == blanked(unknown.page.body))

            // A wrong pick on the phone: the page ends with its own status and no code.
            let mistaken = try await Self.signIn(http, url, clientKey: client.clientKey, identifier: "rosa")
            let shown = try #require(mistaken.matchNumber)
            let request = try #require(try await tessera.pendingAuthRequests().first)
            let wrong = try #require(request.numberChoices?.first { $0 != shown })
            await #expect(throws: TesseraError.self) {
                _ = try await tessera.authenticate(channel: request, matchNumber: wrong, localAuthenticator: LiveServer.pin, reason: "Approve")
            }
            #expect(try await OIDCFlowTests.send(http, mistaken.statusURL + "&wait=0").body == #"{"status":"mismatch"}"#)
            let refused = try await OIDCFlowTests.send(http, mistaken.completeURL)
            #expect(refused.status == 302)
            #expect(refused.headers["Location"].first?.hasPrefix(OIDCFlowTests.redirect + "?error=access_denied&") == true, "\(refused.headers)")
            #expect(refused.headers["Location"].first?.contains("code=") == false)
        }
    }

    @Test("with the switch off the page shows no number and the device gets no choices")
    func offByDefault() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "sven", bundleId: Self.bundle)
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [OIDCFlowTests.redirect]), clientKey: client.clientKey)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            defer { _ = http.shutdown() }
            let waiting = try await Self.signIn(http, url, clientKey: client.clientKey, identifier: "sven")
            #expect(waiting.matchNumber == nil && !waiting.page.body.contains("id=\"match-number\""))
            #expect(try await tessera.pendingAuthRequests().first?.numberChoices == nil)
        }
    }
}
