import Foundation
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// The hosted page as people meet it: headless Chromium walks it in English, German and Korean, a branded
/// client (display name, accent colour, logo), number matching on, through identify, waiting and each
/// ending; axe-core 4 (the axe.min.js of PyPI axe-playwright-python) audits every state at 390 px and 1280 px
/// (Tests/Fixtures/oidc_page_audit.py). The device (the SDK) approves with the page's number or declines;
/// expiry moves the server's clock. Screenshots of the English states go to `.e2e/screenshots/page/`
/// (docs/screenshots/ holds a copy of them).
@Suite("OpenID Connect: the hosted page audited in the browser", .serialized)
struct OIDCPageAuditTests {
    static let bundle = "com.example.page-audit"
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures").standardized.path
    static let screenshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../../.e2e/screenshots/page").standardized.path
    /// Runs on the system clock (the approval's quorum round waits on it); expiry runs on its own server
    /// whose clock the test moves.
    static let plans: [(steps: [String], manualClock: Bool)] = [
        (["en:approve", "en:decline", "de:decline", "ko:decline", "en:approve:max_age=1"], false), (["en:expire"], true),
    ]

    /// One server, a branded client with number matching, and Chromium walking `steps`; the script's output.
    static func walk(_ steps: [String], manualClock: Bool, python: String) async throws -> String {
        let manual = ManualClock(start: WallClock.system.now())
        let signals = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-audit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: signals, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: signals) }
        try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
        let output = OIDCBrowserTests.Shared<String?>(nil)
        try await OIDCBrowserTests.withCallback { redirect in
            // On localhost (a WebAuthn RP ID, unlike 127.0.0.1): the page offers passkeys, and a passkey after an approval.
            let port = try NodeQuorumEndToEndTests.freePort()
            try await LiveServer.run(
                bundleId: Self.bundle, clock: manualClock ? manual.clock : .system, port: port,
                configure: { $0.channelLifetime = .seconds(60); $0.issuer = "http://localhost:\(port)" }
            ) { runtime, client, url in
                let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "ivy", bundleId: Self.bundle)
                _ = try await runtime.oidc.setSettings(
                    .init(redirectUris: [redirect], numberMatching: true, displayName: "Acme Books", accentColor: "#6b21a8", offerPasskeys: true),
                    clientKey: client.clientKey
                )
                let logo = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/acme-logo.png"))
                try await runtime.oidc.setLogo(try ClientLogo(logo, contentType: "image/png"), clientKey: client.clientKey)
                let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret
                let finished = OIDCBrowserTests.Shared(false)
                let browser = Task {
                    defer { finished.value.withLock { $0 = true } }
                    return try await DeviceCLITests.run(
                        URL(fileURLWithPath: python),
                        [Self.fixtures + "/oidc_page_audit.py", "http://localhost:\(port)", client.clientKey, secret, redirect, "ivy@example.com", signals,
                         Self.screenshots, steps.joined(separator: ",")],
                        timeout: 1200
                    )
                }
                for (index, run) in steps.enumerated() {
                    let signal = signals + "/\(index).waiting"
                    _ = await eventually(timeout: .seconds(900)) { FileManager.default.fileExists(atPath: signal) || finished.current }
                    guard FileManager.default.fileExists(atPath: signal) else { break }
                    let number = try String(contentsOfFile: signal, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                    let pending = try #require(await eventually { try? await tessera.pendingAuthRequests().first }, "no request reached the device")
                    switch run.split(separator: ":").dropFirst().first {
                    case "approve":
                        _ = try await tessera.authenticate(channel: pending, matchNumber: number, localAuthenticator: LiveServer.pin, reason: "Approve")
                    case "decline":
                        try await tessera.declineAuthRequest(pending)
                    default:
                        manual.advance(by: .seconds(61))
                    }
                }
                let run = try await browser.value
                #expect(run.status == 0, "\(run.output)")
                output.value.withLock { $0 = run.output }
            }
        }
        return try #require(output.current)
    }

    @Test("axe-core: no serious or critical violation in any state at 390 and 1280 px, in English, German and Korean; no sideways scrolling; approve, decline and expire end at the app with the code or the error and the state; prompt=none with and without a session, prompt=login and max_age=1 ask the phone again with a new auth_time")
    func audit() async throws {
        let python = try TestRequirements.browser(importing: ["authlib"], for: "the hosted page's accessibility audit")
        // axe-core comes as the file axe-playwright-python ships (installed without Playwright: found, not imported).
        let axe = try await ChildProcess.run(python, ["-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('axe_playwright_python') is None)"])
        if axe.status != 0 {
            try TestRequirements.missing("axe-playwright-python (pip install --no-deps axe-playwright-python==0.1.8) in \(python), for axe-core's axe.min.js")
        }
        var audits: [[String: Any]] = []
        var endings: [[String: Any]] = []
        var firstResult: [String: Any] = [:]
        for plan in Self.plans {
            let text = try await Self.walk(plan.steps, manualClock: plan.manualClock, python: python)
            let line = try #require(text.split(separator: "\n").last, "\(text)")
            let result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(text)")
            if firstResult.isEmpty { firstResult = result }
            audits += result["audits"] as? [[String: Any]] ?? []
            endings += result["endings"] as? [[String: Any]] ?? []
        }
        // English: identify, waiting, the passkey offer after the approval, declined, then again identify, waiting and
        // expired on the second server; German and Korean: identify, waiting, declined; each at two widths.
        let expectedAudits: Int = 26
        #expect(audits.count == expectedAudits, "\(audits)")
        for lang in ["en", "de", "ko"] {
            for width in [390, 1280] {
                let found = audits.contains { audit in
                    let sameLanguage = audit["lang"] as? String == lang
                    let sameWidth = audit["width"] as? Int == width
                    return sameLanguage && sameWidth && audit["state"] as? String == "declined"
                }
                #expect(found, "no audit of \(lang) declined at \(width) px")
            }
        }
        for audit in audits {
            let where_ = "\(audit["lang"] ?? "") \(audit["state"] ?? "") at \(audit["width"] ?? "") px"
            #expect((audit["serious_or_critical"] as? [Any])?.isEmpty == true, "\(where_): \(audit["serious_or_critical"] ?? "")")
            #expect(audit["html_lang"] as? String == audit["lang"] as? String, "\(where_)")
            #expect(audit["overflows"] as? Bool == false, "\(where_) scrolls sideways")
            #expect((audit["passes"] as? Int ?? 0) > 10, "\(where_): axe checked too little")
        }
        #expect(endings.count == 6, "\(endings)")
        // prompt=none: login_required without a session at Tessera; with one, a code without the phone, the same approval.
        #expect(firstResult["prompt_none_without_session"] as? String == "login_required", "\(firstResult)")
        let silent = firstResult["prompt_none_with_session"] as? [String: Any] ?? [:]
        let approvals = endings.filter { $0["ending"] as? String == "approve" }
        #expect(approvals.count == 2, "\(endings)")
        let first = approvals.first ?? [:], forced = approvals.last ?? [:]
        #expect(silent["error"] is NSNull && (silent["sid"] as? String) != nil, "\(silent)")
        #expect(silent["sid"] as? String == first["sid"] as? String && (silent["auth_time"] as? Int) == (first["auth_time"] as? Int), "\(silent) \(first)")
        // max_age=1 once the approval is older: the phone is asked again (the page, then a new auth_time).
        #expect((forced["options"] as? [String: String]) == ["max_age": "1"], "\(forced)")
        let firstTime = first["auth_time"] as? Int ?? 0, forcedTime = forced["auth_time"] as? Int ?? 0
        #expect(forcedTime > firstTime, "auth_time \(forcedTime) after max_age=1, \(firstTime) before")
        for ending in endings {
            #expect(ending["state_ok"] as? Bool == true, "\(ending)")
            switch ending["ending"] as? String {
            case "approve":
                #expect(ending["code"] as? Bool == true && ending["error"] is NSNull, "\(ending)")
                #expect(ending["progress"] as? [String] == ["done", "done", "done"], "\(ending)")
            case "decline":
                #expect(ending["error"] as? String == "access_denied" && ending["code"] as? Bool == false, "\(ending)")
                #expect((ending["progress"] as? [String])?.contains("failed") == true, "\(ending)")
            default:
                #expect(ending["error"] as? String == "login_required" && ending["code"] as? Bool == false, "\(ending)")
            }
        }
    }
}
