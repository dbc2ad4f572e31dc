import Foundation
import Testing
@testable import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer

/// "The SDK will not expose the session token" (Vipaso seed): no public call that touches sessions
/// answers anything holding it, and no file the SDK writes holds it in clear.
@Suite("SDK: the session token stays inside the SDK")
struct SessionTokenPrivacyTests {
    static let bundleId = "com.example.privacy"

    /// Everything a value holds, as text (its description and every stored property, recursively).
    static func dump(_ value: Any) -> String {
        var out = String(reflecting: value)
        for child in Mirror(reflecting: value).children { out += "\n" + dump(child.value) }
        return out
    }

    @Test("the public calls that touch sessions answer nothing holding the token; the file store keeps it sealed, also after a relaunch")
    func tokenStaysInside() async throws {
        try await LiveServer.run(bundleId: Self.bundleId) { runtime, client, url in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-privacy-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let configuration = TesseraClient.Configuration(serverURL: url, clientKey: client.clientKey, bundleIdentifier: Self.bundleId, timeout: .sdkTestDeadline)
            let tessera = TesseraClient(configuration: configuration, keyStore: try FileKeyStore(directory: directory))

            // Every public call of the session API, its answer kept.
            var answers: [Any] = []
            let flow = try await tessera.startSignupFlow(request: StartSignupRequest(phoneNumber: "+41797771234"))
            answers.append(flow)
            answers.append(try await tessera.verifyPhoneNumber(request: VerifyPhoneNumberRequest(
                flowID: flow.flowID, otp: try await LiveServer.latestCode(runtime, to: "+41797771234")
            )))
            answers.append(try await tessera.finishSignupFlow(request: FinishSignupRequest(
                flowID: flow.flowID, password: "correct horse battery staple 7", email: "privacy@example.com", firstName: "Pri",
                lastName: "Vacy", phoneNumber: "+41797771234"
            )))
            answers.append(try await tessera.currentSession())
            answers.append(try await tessera.sessions())
            answers.append(tessera.isAuthenticated)
            answers.append(try await tessera.login(identifier: "privacy@example.com", password: "correct horse battery staple 7"))
            answers.append(try await tessera.currentSession())
            answers.append(try tessera.loadDeviceID() as Any)
            answers.append(try tessera.keyStore.loadState() as Any)

            let token = try #require(try tessera.sessionVault.loadSession()?.token)
            #expect(token.count >= 20)
            for answer in answers {
                #expect(!Self.dump(answer).contains(token), "a public answer holds the session token: \(type(of: answer))")
            }

            // No file of the store holds the token, in clear or base64.
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files.contains("session.sealed"))
            #expect(!files.contains("session.json"))
            for name in files {
                let data = try Data(contentsOf: directory.appendingPathComponent(name))
                #expect(data.range(of: Data(token.utf8)) == nil, "\(name) holds the session token")
                #expect(data.range(of: Data(Data(token.utf8).base64EncodedString().utf8)) == nil, "\(name) holds the token in base64")
            }

            // A relaunch over the same directory is still logged in, from the sealed file.
            let relaunched = TesseraClient(configuration: configuration, keyStore: try FileKeyStore(directory: directory))
            #expect(relaunched.isAuthenticated)
            #expect(try await relaunched.currentSession().identity.id == (try await tessera.currentSession()).identity.id)
        }
    }

    @Test("a session kept in clear by an older version is sealed at the first read, and logging out removes every session file")
    func plainSessionMoves() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-privacy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try FileKeyStore(directory: directory)
        let old = StoredSession(token: "tst_old_session_token_in_clear", deviceBound: true, identityId: "usr_1")
        try JSONEncoder().encode(old).write(to: directory.appendingPathComponent("session.json"))

        #expect(try store.loadSession() == old)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("session.json").path))
        let sealed = try Data(contentsOf: directory.appendingPathComponent("session.sealed"))
        #expect(sealed.range(of: Data(old.token.utf8)) == nil)
        #expect(try FileKeyStore(directory: directory).loadSession() == old)

        try store.saveSession(nil)
        #expect(try store.loadSession() == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("session") }.isEmpty)
    }
}
