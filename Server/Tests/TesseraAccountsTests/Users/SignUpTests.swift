import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

@Suite("Sign-up")
struct SignUpTests {
    @Test("duplicate check, user-key check, signed sign-up, then the checks see the account", arguments: TestDatabase.kinds)
    func happyPath(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            let token = try await SignUpFixtures.disposeToken(runtime, client, email: "new@example.com")
            let deviceKey = P256.Signing.PrivateKey()
            let app = Application(router: runtime.makeRouter(), logger: TestDatabase.logger)
            try await app.test(.router) { http in
                var appHeaders: HTTPFields = [.contentType: "application/json"]
                appHeaders[HTTPField.Name(TesseraHeader.clientKey)!] = client.clientKey
                appHeaders[HTTPField.Name(TesseraHeader.bundleId)!] = client.bundleIds[0]
                let duplicateBody = ByteBuffer(string: #"{"verifyType":"Email","verifyData":"New@Example.com"}"#)
                try await http.run(uri: "/v1/users/check-duplicate", method: .post, headers: appHeaders, body: duplicateBody) { response in
                    let decoded = try JSONDecoder().decode(CheckDuplicateResponse.self, from: Data(buffer: response.body))
                    #expect(decoded.duplicate == false)
                }
                let keyBody = ByteBuffer(string: #"{"userKey":"alice"}"#)
                try await http.run(uri: "/v1/users/check-user-key", method: .post, headers: appHeaders, body: keyBody) { response in
                    let decoded = try JSONDecoder().decode(CheckUserKeyResponse.self, from: Data(buffer: response.body))
                    #expect(decoded.available == true)
                }
                let body = try JSONEncoder().encode(SignUpFixtures.request(client, email: "new@example.com", phone: "+41791110000", userKey: "alice", token: token, deviceKey: deviceKey))
                let signed = try SignUpFixtures.headers(client, body: body, signer: deviceKey, keyOwner: deviceKey)
                var created: SignUpResponse?
                try await http.run(uri: "/v1/signup", method: .post, headers: signed, body: ByteBuffer(bytes: body)) { response in
                    #expect(response.status == .created, "\(String(buffer: response.body))")
                    created = try JSONDecoder().decode(SignUpResponse.self, from: Data(buffer: response.body))
                }
                let account = try #require(created)
                #expect(account.deviceId.hasPrefix("dev_") && account.sessionToken.hasPrefix("tss_"))
                #expect(Base32.decode(account.totpSecret)?.count == 20)
                try await http.run(uri: "/v1/users/check-duplicate", method: .post, headers: appHeaders, body: duplicateBody) { response in
                    let decoded = try JSONDecoder().decode(CheckDuplicateResponse.self, from: Data(buffer: response.body))
                    #expect(decoded.duplicate == true)
                }
                try await http.run(uri: "/v1/users/check-user-key", method: .post, headers: appHeaders, body: keyBody) { response in
                    let decoded = try JSONDecoder().decode(CheckUserKeyResponse.self, from: Data(buffer: response.body))
                    #expect(decoded.available == false)
                }
                // The device's key now verifies its signed requests under its device ID.
                let stored = try #require(try await SQLDeviceRepository(database: runtime.database).signingKey(for: account.deviceId))
                #expect(stored.publicKey.x963Representation == deviceKey.publicKey.x963Representation && !stored.revoked)
                // The same dispose token cannot create a second account.
                let again = try JSONEncoder().encode(SignUpFixtures.request(client, email: "new@example.com", phone: "+41791110001", userKey: "alice2", token: token, deviceKey: deviceKey))
                try await http.run(uri: "/v1/signup", method: .post, headers: try SignUpFixtures.headers(client, body: again, signer: deviceKey, keyOwner: deviceKey), body: ByteBuffer(bytes: again)) { response in
                    #expect(SignUpFixtures.code(response) == ErrorCode.disposeTokenInvalid.rawValue)
                }
            }
        }
    }

    @Test("refusals: no signature, another key's signature, missing agreement, token for another address", arguments: TestDatabase.kinds)
    func refusals(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.otp.resendCooldown = .zero }) { runtime in
            let client = try await runtime.makeTestClient()
            let token = try await SignUpFixtures.disposeToken(runtime, client, email: "bob@example.com")
            let deviceKey = P256.Signing.PrivateKey()
            let app = Application(router: runtime.makeRouter(), logger: TestDatabase.logger)
            try await app.test(.router) { http in
                let body = try JSONEncoder().encode(SignUpFixtures.request(client, email: "bob@example.com", phone: "+41791110002", userKey: "bob", token: token, deviceKey: deviceKey))
                var unsigned = try SignUpFixtures.headers(client, body: body, signer: deviceKey, keyOwner: deviceKey)
                unsigned[HTTPField.Name("Signature")!] = nil
                try await http.run(uri: "/v1/signup", method: .post, headers: unsigned, body: ByteBuffer(bytes: body)) { response in
                    #expect(SignUpFixtures.code(response) == ErrorCode.signatureMissing.rawValue)
                }
                let forged = try SignUpFixtures.headers(client, body: body, signer: P256.Signing.PrivateKey(), keyOwner: deviceKey)
                try await http.run(uri: "/v1/signup", method: .post, headers: forged, body: ByteBuffer(bytes: body)) { response in
                    #expect(SignUpFixtures.code(response) == ErrorCode.signatureInvalid.rawValue)
                }
                let noAgreement = try JSONEncoder().encode(SignUpFixtures.request(client, email: "bob@example.com", phone: "+41791110002", userKey: "bob", token: token, deviceKey: deviceKey, agree: false))
                try await http.run(uri: "/v1/signup", method: .post, headers: try SignUpFixtures.headers(client, body: noAgreement, signer: deviceKey, keyOwner: deviceKey), body: ByteBuffer(bytes: noAgreement)) { response in
                    #expect(SignUpFixtures.code(response) == ErrorCode.agreementsRequired.rawValue)
                }
                let otherAddress = try JSONEncoder().encode(SignUpFixtures.request(client, email: "carol@example.com", phone: "+41791110003", userKey: "carol", token: token, deviceKey: deviceKey))
                try await http.run(uri: "/v1/signup", method: .post, headers: try SignUpFixtures.headers(client, body: otherAddress, signer: deviceKey, keyOwner: deviceKey), body: ByteBuffer(bytes: otherAddress)) { response in
                    #expect(SignUpFixtures.code(response) == ErrorCode.disposeTokenTargetMismatch.rawValue)
                }
                // None of the refusals used the token up: the right request still succeeds.
                try await http.run(uri: "/v1/signup", method: .post, headers: try SignUpFixtures.headers(client, body: body, signer: deviceKey, keyOwner: deviceKey), body: ByteBuffer(bytes: body)) { response in
                    #expect(response.status == .created)
                }
            }
        }
    }

    enum Collision: String, CaseIterable, Sendable { case email, userKey }

    @Test("50 concurrent sign-ups with the same e-mail (or user key) create exactly one account",
          arguments: TestDatabase.kinds, Collision.allCases)
    func concurrentDuplicates(kind: TestDatabase, collision: Collision) async throws {
        try await withTestRuntime(kind, configure: {
            $0.otp.resendCooldown = .zero
            $0.otp.perTargetHourlyLimit = 1000
            $0.otp.perClientHourlyLimit = 1000
        }) { runtime in
            let client = try await runtime.makeTestClient()
            var requests: [(SignUpRequest, String)] = []
            for index in 0..<50 {
                let email = collision == .email ? "same@example.com" : "user\(index)@example.com"
                let token = try await SignUpFixtures.disposeToken(runtime, client, email: email)
                let userKey = collision == .userKey ? "same-key" : "key\(index)"
                requests.append((SignUpFixtures.request(client, email: email, phone: "+4179200\(String(format: "%04d", index))", userKey: userKey, token: token, deviceKey: P256.Signing.PrivateKey()), email))
            }
            let service = runtime.signUp
            let outcomes = await withTaskGroup(of: Int.self) { group in
                for (request, email) in requests {
                    group.addTask {
                        do {
                            _ = try await service.signUp(request, client: client, email: email, phone: request.phoneNumber)
                            return 0
                        } catch let error as AppError {
                            return error.code.rawValue
                        } catch {
                            return -1
                        }
                    }
                }
                return await group.reduce(into: [Int]()) { $0.append($1) }
            }
            let expected = collision == .email ? ErrorCode.duplicateEmail.rawValue : ErrorCode.userKeyTaken.rawValue
            #expect(outcomes.filter { $0 == 0 }.count == 1)
            #expect(outcomes.filter { $0 == expected }.count == 49, "outcomes: \(outcomes.sorted())")
            let users = try await runtime.database.withSQL { try await SQLUserRepository().count(clientId: client.id, in: $0) }
            #expect(users == 1)
        }
    }
}
