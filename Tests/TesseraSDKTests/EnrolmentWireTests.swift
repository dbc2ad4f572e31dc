import Foundation
import Synchronization
import Testing
import Tessera
import TesseraCore

/// What sign-up (`POST /v1/signup`) and re-registration (`POST /v1/devices/register`) put on the wire:
/// the JSON members, their values and which are left out, from the SDK's calls down to the bytes the
/// transport gets. The server decodes these types (Server/Sources/TesseraServer); its tests run the
/// flows against a live server, these pin the documents without one.
@Suite("Sign-up and re-registration wire")
struct EnrolmentWireTests {
    /// Plays the server: records each request's body and answers a sign-up answer.
    final class RecordingTransport: HTTPTransport {
        let bodies = Mutex<[(path: String, body: Data)]>([])

        func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer {
            bodies.withLock { $0.append((url.path, body ?? Data())) }
            let answer = SignUpResponse(userKey: "alice", deviceId: "dev_1", totpSecret: "JBSWY3DPEHPK3PXP", sessionToken: "tst_1", sessionExpiresIn: 60)
            return HTTPAnswer(status: 200, body: try JSONEncoder().encode(answer))
        }

        func lines(url: URL, headers: [String: String]) async throws -> (status: Int, lines: AsyncThrowingStream<String, any Error>) {
            throw OfflineTransport.Offline()
        }
    }

    static let configuration = TesseraClient.Configuration(
        serverURL: URL(string: "https://id.example.com")!, clientKey: "tck_wire", bundleIdentifier: "com.example.app"
    )

    /// `data` with sorted members, the device's two fresh public keys replaced by `<key>` (they are random).
    static func canonical(_ data: Data) throws -> String {
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in ["devicePublicKey", "userVerificationPublicKey"] where object[key] is String { object[key] = "<key>" }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The one body the client sent to `path` while `body` ran.
    static func sent(to path: String, _ body: (TesseraClient) async throws -> Void) async throws -> String {
        let transport = RecordingTransport()
        let client = TesseraClient(configuration: configuration, keyStore: MemoryKeyStore(), transport: transport)
        try await body(client)
        let bodies = transport.bodies.withLock { $0 }
        #expect(bodies.map(\.path) == [path])
        return try canonical(try #require(bodies.first).body)
    }

    static var pin: ScriptedLocalAuthenticator { ScriptedLocalAuthenticator([.success(LocalAuthResult(enteredSecret: "4711"))]) }

    @Test("sign-up sends every field of UserData, the configured appPackage and clientKey, the two keys and the PIN")
    func signUp() async throws {
        let json = try await Self.sent(to: "/v1/signup") { client in
            let userData = UserData(
                appVersion: "1.1.1", token: "push-1", email: "alice@example.com", phoneNumber: "+41790000001", userKey: "alice",
                name: "Alice", authType: .pin, os: .iOS, disposeToken: "tdt_1", agreeGccs: true, agreePerson: true, agreeDevice: false
            )
            try await client.requestSignUp(userData: userData, localAuthenticator: Self.pin, reason: "Sign up")
        }
        #expect(json == #"""
        {"agreeDevice":false,"agreeGccs":true,"agreePerson":true,"appPackage":"com.example.app","appVersion":"1.1.1","authType":"PIN","clientKey":"tck_wire","devicePublicKey":"<key>","disposeToken":"tdt_1","email":"alice@example.com","name":"Alice","os":"iOS","phoneNumber":"+41790000001","pin":"4711","token":"push-1","userKey":"alice","userVerificationPublicKey":"<key>"}
        """#)
    }

    @Test("re-registration with every field of ExistingUserData: name, e-mail, phone and otpType sent, no appPackage or clientKey")
    func registerDeviceFilled() async throws {
        let json = try await Self.sent(to: "/v1/devices/register") { client in
            let existing = ExistingUserData(
                appPackage: "com.example.app", clientKey: "tck_wire", appVersion: "2.0", token: "", email: "alice@example.com",
                phoneNumber: "+41790000001", userKey: "alice", name: "Alice", authType: .pin, os: .android, disposeToken: "tdt_2", otpType: .sms
            )
            try await client.requestRegisterDevice(existingUserData: existing, localAuthenticator: Self.pin, reason: "Move")
        }
        #expect(json == #"""
        {"appVersion":"2.0","authType":"PIN","devicePublicKey":"<key>","disposeToken":"tdt_2","email":"alice@example.com","name":"Alice","os":"Android","otpType":"sms","phoneNumber":"+41790000001","pin":"4711","token":"","userKey":"alice","userVerificationPublicKey":"<key>"}
        """#)
    }

    @Test("re-registration with only what the server needs: the empty name, e-mail and phone, the secret and otpType left out")
    func registerDeviceMinimal() async throws {
        let json = try await Self.sent(to: "/v1/devices/register") { client in
            let existing = ExistingUserData(userKey: "alice", disposeToken: "tdt_3", appVersion: "2.1", token: "push-2", authType: .none, os: .linux)
            let none = ScriptedLocalAuthenticator([.success(LocalAuthResult())])
            try await client.requestRegisterDevice(existingUserData: existing, localAuthenticator: none, reason: "Move")
        }
        #expect(json == #"""
        {"appVersion":"2.1","authType":"NONE","devicePublicKey":"<key>","disposeToken":"tdt_3","os":"Linux","token":"push-2","userKey":"alice","userVerificationPublicKey":"<key>"}
        """#)
    }

    static let signUpJSON = #"""
    {"agreeDevice":true,"agreeGccs":true,"agreePerson":true,"appPackage":"a","appVersion":"1","authType":"PASSWORD","clientKey":"c","devicePublicKey":"d","disposeToken":"t","email":"e","name":"n","os":"o","password":"pw","phoneNumber":"p","token":"k","userKey":"u","userVerificationPublicKey":"v"}
    """#
    static let registerJSON = #"""
    {"appVersion":"1","authType":"PIN","devicePublicKey":"d","disposeToken":"t","email":"e","os":"o","pin":"1234","token":"k","userKey":"u","userVerificationPublicKey":"v"}
    """#

    @Test("the server's side: the documents decode into the wire types and encode back to the same members")
    func roundTrip() throws {
        let signUp = try JSONDecoder().decode(SignUpRequest.self, from: Data(Self.signUpJSON.utf8))
        #expect(signUp == SignUpRequest(
            appPackage: "a", clientKey: "c", appVersion: "1", token: "k", email: "e", phoneNumber: "p", userKey: "u", name: "n",
            authType: "PASSWORD", os: "o", disposeToken: "t", agreeGccs: true, agreePerson: true, agreeDevice: true,
            devicePublicKey: "d", userVerificationPublicKey: "v", password: "pw"
        ))
        #expect(signUp.userKey == "u" && signUp.pin == nil && signUp.password == "pw")
        #expect(try Self.canonical(try JSONEncoder().encode(signUp)) == Self.signUpJSON.replacingOccurrences(of: #""d""#, with: #""<key>""#)
            .replacingOccurrences(of: #""v""#, with: #""<key>""#))

        let register = try JSONDecoder().decode(RegisterDeviceRequest.self, from: Data(Self.registerJSON.utf8))
        #expect(register == RegisterDeviceRequest(
            userKey: "u", disposeToken: "t", appVersion: "1", token: "k", authType: "PIN", os: "o", devicePublicKey: "d",
            userVerificationPublicKey: "v", pin: "1234", email: "e"
        ))
        #expect(register.name == nil && register.email == "e" && register.otpType == nil && register.authType == "PIN")
        #expect(try Self.canonical(try JSONEncoder().encode(register)) == Self.registerJSON.replacingOccurrences(of: #""d""#, with: #""<key>""#)
            .replacingOccurrences(of: #""v""#, with: #""<key>""#))
    }

    @Test("a missing member is named as the server reports it (1004 with the field)", arguments: ["userKey", "devicePublicKey", "email", "agreeDevice"])
    func missing(field: String) throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(Self.signUpJSON.utf8)) as? [String: Any])
        object[field] = nil
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect {
            try JSONDecoder().decode(SignUpRequest.self, from: data)
        } throws: { error in
            guard case DecodingError.keyNotFound(let key, let context) = error else { return false }
            return key.stringValue == field && context.codingPath.isEmpty
        }
    }

    @Test("a wrong type is named with its path", arguments: ["pin", "os"])
    func wrongType(field: String) throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(Self.registerJSON.utf8)) as? [String: Any])
        object[field] = 12
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect {
            try JSONDecoder().decode(RegisterDeviceRequest.self, from: data)
        } throws: { error in
            guard case DecodingError.typeMismatch(_, let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == [field]
        }
    }
}
