import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// The hosted page's language (one catalogue per language, `ui_locales` then `Accept-Language`) and the
/// client's branding (display name, accent colour, logo) through the admin API, against a live server.
@Suite("OpenID Connect: the page's language and branding", .serialized)
struct OIDCPageBrandingTests {
    static let redirect = OIDCFlowTests.redirect

    /// A PNG header of `width`×`height` (signature and IHDR; enough for the server, which checks and stores bytes).
    static func png(width: UInt32 = 2, height: UInt32 = 2, padding: Int = 32) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8)
        for value in [width, height] { data += withUnsafeBytes(of: value.bigEndian) { Data($0) } }
        return data + Data([8, 6, 0, 0, 0]) + Data(repeating: 0, count: padding)
    }

    static func admin(
        _ method: HTTPMethod, _ path: String, url: URL, runtime: TesseraRuntime, body: Data? = nil, type: String = "application/json"
    ) async throws -> (status: Int, headers: HTTPHeaders, body: Data) {
        var request = HTTPClientRequest(url: url.absoluteString + "/v1/admin/" + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(try #require(runtime.firstStart?.adminToken))")
        if let body {
            request.headers.add(name: "Content-Type", value: type)
            request.body = .bytes(ByteBuffer(data: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return (Int(response.status.code), response.headers, Data(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    static func get(_ url: String, headers: [(String, String)] = []) async throws -> (status: Int, headers: HTTPHeaders, body: String, data: Data) {
        var request = HTTPClientRequest(url: url)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        return (Int(response.status.code), response.headers, String(decoding: data, as: UTF8.self), data)
    }

    @Test("the language: the first ui_locales with a catalogue, else Accept-Language by weight (q=0 refused, * is English), else English")
    func negotiation() {
        #expect(SignInStrings.negotiate(uiLocales: "fr ko-KR en", acceptLanguage: "de").language == "ko")
        #expect(SignInStrings.negotiate(uiLocales: "fr", acceptLanguage: "fr;q=1, de-AT;q=0.8, en;q=0.5").language == "de")
        #expect(SignInStrings.negotiate(uiLocales: nil, acceptLanguage: "en;q=0.2, ko;q=0.9").language == "ko")
        #expect(SignInStrings.negotiate(uiLocales: nil, acceptLanguage: "de;q=0, fr").language == "en")
        #expect(SignInStrings.negotiate(uiLocales: nil, acceptLanguage: "fr, *;q=0.1, de;q=0.05").language == "en")
        #expect(SignInStrings.negotiate(uiLocales: nil, acceptLanguage: "DE-ch").language == "de")
        #expect(SignInStrings.negotiate(uiLocales: "", acceptLanguage: ";;,q=,").language == "en")
        #expect(SignInStrings.negotiate(uiLocales: nil, acceptLanguage: nil).language == "en")
    }

    @Test("every catalogue translates every string and keeps the placeholders the page fills in")
    func catalogues() {
        let english = SignInStrings.english
        for strings in SignInStrings.all {
            let mirror = Mirror(reflecting: strings)
            for child in mirror.children {
                guard let label = child.label, let text = child.value as? String else { continue }
                if label != "tapAfter" { #expect(!text.isEmpty, "\(strings.language).\(label) is empty") }
                let englishText = Mirror(reflecting: english).children.first { $0.label == label }?.value as? String ?? ""
                #expect(englishText.contains("{name}") == text.contains("{name}"), "\(strings.language).\(label) placeholders")
                #expect(englishText.contains("{detail}") == text.contains("{detail}"), "\(strings.language).\(label) placeholders")
                if strings.language != "en", !["language", "sendAsForm", "tapAfter"].contains(label) {
                    #expect(text != englishText, "\(strings.language).\(label) is not translated")
                }
            }
        }
        #expect(Set(SignInStrings.all.map(\.language)) == ["en", "de", "ko"])
    }

    @Test("WCAG contrast of accent colours against white: AA (4.5:1) or refused, with the ratio in the message")
    func contrast() {
        #expect(abs((ClientBranding.contrastWithWhite("#000000") ?? 0) - 21) < 0.01)
        #expect(abs((ClientBranding.contrastWithWhite("#ffffff") ?? 0) - 1) < 0.01)
        #expect(abs((ClientBranding.contrastWithWhite("#767676") ?? 0) - 4.54) < 0.01)
        #expect(ClientBranding.problem(displayName: nil, accentColor: ClientBranding.defaultAccent) == nil)
        #expect(ClientBranding.problem(displayName: nil, accentColor: "#ffcc00")?.detail.contains("1.5:1") == true)
        for bad in ["#12345", "0b57d0", "#0b57d0 ", "#+12345", "#-12345", "#gggggg", "red"] {
            #expect(ClientBranding.problem(displayName: nil, accentColor: bad)?.field == "accentColor", "\(bad)")
        }
        // 61 code points that make 31 characters: too long, as JSON Schema's maxLength counts code points.
        #expect(ClientBranding.problem(displayName: String(repeating: "e\u{301}", count: 30) + "e", accentColor: nil)?.field == "displayName")
        #expect(ClientBranding.problem(displayName: String(repeating: "é", count: 60), accentColor: nil) == nil)
        for bad in ["", " Acme", String(repeating: "a", count: 61), "Ac\u{7}me"] {
            #expect(ClientBranding.problem(displayName: bad, accentColor: nil)?.field == "displayName", "\(bad)")
        }
    }

    @Test("ui_locales picks the page's language for the whole sign-in; Accept-Language when it names none; discovery lists the three")
    func languages() async throws {
        try await LiveServer.run(bundleId: "com.example.oidc-language") { runtime, client, url in
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect]), clientKey: client.clientKey)
            let http = OIDCAuthorizationRequestTests.http()
            defer { _ = http.shutdown() }
            let german = try await Self.get(OIDCAuthorizationRequestTests.url(url, clientKey: client.clientKey, [("ui_locales", "fr-CA de")]))
            #expect(german.status == 200)
            #expect(german.body.contains(#"<html lang="de">"#) && german.body.contains("Bei \(client.name) anmelden"), "\(german.body)")
            #expect(german.headers["Content-Language"].first == "de")
            // The identifier step (no Accept-Language) keeps the language the request asked for.
            let action = try #require(german.body.firstMatch(of: /action="([^"]+)"/)?.1)
            let csrf = try #require(german.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
            let waiting = try await OIDCFlowTests.send(http, url.absoluteString + action, form: ["csrf": String(csrf), "identifier": "nobody@example.com"])
            #expect(waiting.body.contains(#"<html lang="de">"#) && waiting.body.contains("Bestätigen Sie die Anmeldung auf Ihrem Telefon."), "\(waiting.body)")
            #expect(waiting.body.contains(#""declined":"Die Anmeldung wurde auf Ihrem Telefon abgelehnt.""#))
            #expect(waiting.body.contains("Nicht Sie?") && waiting.body.contains(">Abbrechen<"))

            let korean = try await Self.get(OIDCAuthorizationRequestTests.url(url, clientKey: client.clientKey), headers: [("Accept-Language", "fr, ko;q=0.9, en;q=0.8")])
            #expect(korean.body.contains(#"<html lang="ko">"#) && korean.body.contains("\(client.name)에 로그인"), "\(korean.body)")
            let english = try await Self.get(OIDCAuthorizationRequestTests.url(url, clientKey: client.clientKey, [("ui_locales", "fr")]))
            #expect(english.body.contains(#"<html lang="en">"#) && english.body.contains("Sign in to \(client.name)"))
            // An error page before any request exists: in the browser's language.
            let unknown = try await Self.get(url.absoluteString + "/oauth2/authorize?client_id=nobody", headers: [("Accept-Language", "de")])
            #expect(unknown.status == 400 && unknown.body.contains("Anmeldung nicht möglich"), "\(unknown.body)")

            let discovery = try await Self.get(url.absoluteString + "/.well-known/openid-configuration")
            let metadata = try #require(try JSONSerialization.jsonObject(with: Data(discovery.body.utf8)) as? [String: Any])
            #expect(metadata["ui_locales_supported"] as? [String] == ["en", "de", "ko"])
        }
    }

    @Test("display name, accent colour and logo through the admin API reach the page; bad values are refused naming the field")
    func branding() async throws {
        try await LiveServer.run(bundleId: "com.example.oidc-branding") { runtime, client, url in
            let key = client.clientKey
            // A logo before the client has OIDC settings: refused, naming what to do first.
            let early = try await Self.admin(.PUT, "clients/\(key)/oidc/logo", url: url, runtime: runtime, body: Self.png(), type: "image/png")
            #expect(early.status == 400 && String(decoding: early.body, as: UTF8.self).contains("before its logo"))

            var settings = OIDCClientSettings(redirectUris: [Self.redirect], displayName: "Acme Books", accentColor: "#8A2BE2")
            let put = try await Self.admin(.PUT, "clients/\(key)/oidc", url: url, runtime: runtime, body: try JSONEncoder().encode(settings))
            #expect(put.status == 200, "\(String(decoding: put.body, as: UTF8.self))")
            for (field, value) in [("accentColor", "\"#ffcc00\""), ("accentColor", "\"blue\""), ("displayName", "\"\""), ("displayName", "null")] {
                let body = #"{"redirectUris":["\#(Self.redirect)"],"\#(field)":\#(value)}"#
                let refused = try await Self.admin(.PUT, "clients/\(key)/oidc", url: url, runtime: runtime, body: Data(body.utf8))
                #expect(refused.status == 400, "\(field) \(value)")
                let problem = try JSONSerialization.jsonObject(with: refused.body) as? [String: Any]
                let codes = [ErrorCode.fieldInvalid, .fieldWrongType, .fieldMissing].map(\.rawValue)
                #expect(codes.contains(problem?["code"] as? Int ?? 0), "\(field) \(value): \(problem ?? [:])")
            }

            let logo = Self.png(width: 64, height: 64)
            #expect(try await Self.admin(.PUT, "clients/\(key)/oidc/logo", url: url, runtime: runtime, body: logo, type: "image/png").status == 204)
            // Type and bytes must agree; SVG and other types are refused; so are logos too large in bytes or pixels.
            #expect(try await Self.admin(.PUT, "clients/\(key)/oidc/logo", url: url, runtime: runtime, body: logo, type: "image/jpeg").status == 400)
            #expect(try await Self.admin(.PUT, "clients/\(key)/oidc/logo", url: url, runtime: runtime, body: Data("<svg/>".utf8), type: "image/svg+xml").status == 415)
            #expect(try await Self.admin(.PUT, "clients/\(key)/oidc/logo", url: url, runtime: runtime, body: Self.png(padding: 70_000), type: "image/png").status == 413)
            #expect(try await Self.admin(.PUT, "clients/\(key)/oidc/logo", url: url, runtime: runtime, body: Self.png(width: 4096), type: "image/png").status == 400)
            #expect(try await Self.admin(.PUT, "clients/\(key)/oidc/logo", url: url, runtime: runtime, body: Data(), type: "image/png").status == 400)

            let page = try await Self.get(OIDCAuthorizationRequestTests.url(url, clientKey: key))
            #expect(page.body.contains("Sign in to Acme Books"), "\(page.body)")
            #expect(page.body.contains("--accent: #8a2be2;"))
            let src = try #require(page.body.firstMatch(of: /<img id="logo" class="logo" src="([^"]+)"/)?.1)
            let served = try await Self.get(url.absoluteString + String(src))
            #expect(served.status == 200 && served.data == logo, "\(src): \(served.status) \(served.body)")
            #expect(served.headers["Content-Type"].first == "image/png" && served.headers["X-Content-Type-Options"].first == "nosniff")
            #expect(served.headers["Content-Security-Policy"].first?.hasPrefix("default-src 'none'") == true)
            let etag = try #require(served.headers["ETag"].first)
            #expect(try await Self.get(url.absoluteString + String(src), headers: [("If-None-Match", etag)]).status == 304)

            // The settings say what the page shows; saving them again keeps the logo.
            let shown = try await Self.admin(.GET, "clients/\(key)/oidc", url: url, runtime: runtime)
            let decoded = try JSONDecoder().decode(OIDCClientSettings.self, from: shown.body)
            #expect(decoded.displayName == "Acme Books" && decoded.accentColor == "#8A2BE2")
            settings.displayName = nil
            #expect(try await Self.admin(.PUT, "clients/\(key)/oidc", url: url, runtime: runtime, body: try JSONEncoder().encode(settings)).status == 200)
            let plain = try await Self.get(OIDCAuthorizationRequestTests.url(url, clientKey: key))
            #expect(plain.body.contains("Sign in to \(client.name)") && plain.body.contains(String(src)))

            #expect(try await Self.admin(.DELETE, "clients/\(key)/oidc/logo", url: url, runtime: runtime).status == 204)
            #expect(try await Self.get(url.absoluteString + String(src)).status == 404)
            let noLogo = try await Self.get(OIDCAuthorizationRequestTests.url(url, clientKey: key))
            #expect(!noLogo.body.contains("id=\"logo\""))
            #expect(try await Self.get(url.absoluteString + "/oauth2/logo/nobody").status == 404)
        }
    }
}
