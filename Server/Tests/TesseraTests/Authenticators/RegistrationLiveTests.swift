import Foundation
import Synchronization
import Testing
import Tessera
import TesseraTesting
import TesseraCore
@testable import TesseraServer

/// The registration operation against the real server (not the stand-in of the builder tests):
/// the policy set by the admin drives what the selector sees and what the server accepts.
@Suite("SDK: authenticator registration against a live server")
struct RegistrationLiveTests {
    static let bundle = "com.example.nevis"

    @Test("PIN and fingerprint under the client's policy; new OS biometrics make the fingerprint key disappear permanently")
    func registerUnderPolicy() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "nevis", bundleId: Self.bundle)
            try await runtime.setClientPolicy(
                ClientPolicy(allowedAuthenticators: [.pin, .fingerprint], pin: PINRules(minLength: 6, maxLength: 8)), clientKey: client.clientKey
            )
            // The selector is only offered what the policy allows.
            let offered = OfferedTypes()
            let enroller = RegistrationBuilderTests.ScriptedEnroller(["123456", "482913"])
            let pin = try await tessera.registration()
                .username("nevis")
                .deviceInformation(DeviceInformation(name: "Test phone", pushToken: "push-2"))
                .authenticatorSelector(ClosureAuthenticatorSelector { context in
                    offered.set(context.authenticators)
                    return .pin
                })
                .pinEnroller(enroller)
                .execute()
            #expect(offered.value == [.pin, .fingerprint])
            #expect(enroller.pinContexts.count == 2, "the run 123456 is refused on the device and the enroller asked again")
            #expect(pin.type == .pin && pin.aaid == "F1D0#0001")

            // A type the policy does not allow is refused before anything is sent.
            do {
                try await tessera.registration().username("nevis").authenticatorSelector(ClosureAuthenticatorSelector { _ in .password })
                    .passwordEnroller(enroller).execute()
                Issue.record("a disallowed type was registered")
            } catch let error as OperationError {
                #expect(error == .authenticatorNotAllowed(.password), "\(error)")
            }

            let biometrics = MockBiometricUserVerifier()
            let finger = try await tessera.registration().username("nevis").authenticatorSelector(ClosureAuthenticatorSelector.fixed(.fingerprint))
                .deviceInformation(DeviceInformation(name: "Renamed phone", pushToken: "push-3"))
                .biometricUserVerifier(biometrics).invalidateOnNewOsBiometrics(true).execute()
            // The seed's rule: the device information of the first registration is kept.
            let users = try await runtime.userAdmin.list(clientKey: client.clientKey).users
            #expect(users.first { $0.userKey == "nevis" }?.devices.first { $0.status == "active" }?.name == "Test phone")
            #expect(finger.invalidateOnNewOsBiometrics)
            let onServer = try await runtime.userAuthenticators(clientKey: client.clientKey, userKey: "nevis").authenticators
            #expect(Set(onServer.map(\.id)) == [pin.id, finger.id])
            #expect(Set(try await tessera.listAuthenticators().map(\.id)) == [pin.id, finger.id])

            _ = try tessera.signWithAuthenticator(.fingerprint, data: Data("challenge".utf8), currentBiometricDomainState: biometrics.domainState)
            biometrics.enrollNewBiometrics()
            #expect(throws: FidoErrorCode.keyDisappearedPermanently) {
                try tessera.signWithAuthenticator(.fingerprint, data: Data("challenge".utf8), currentBiometricDomainState: biometrics.domainState)
            }
            // Deleting through the SDK removes it at the server too.
            try await tessera.deleteAuthenticator(id: finger.id)
            #expect(try await runtime.userAuthenticators(clientKey: client.clientKey, userKey: "nevis").authenticators.map(\.id) == [pin.id])
        }
    }

    final class OfferedTypes: Sendable {
        private let types = Mutex<[AuthenticatorType]>([])
        var value: [AuthenticatorType] { types.withLock { $0 } }
        func set(_ value: [AuthenticatorType]) { types.withLock { $0 = value } }
    }
}
