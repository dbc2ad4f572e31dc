import Foundation
import Testing
@testable import Tessera
import TesseraCore

/// The plain-Swift half of the app's passkey ceremonies (what ``ApplePasskeyProvider`` is handed and gives
/// back): the server's WebAuthn options decoded for the platform, the platform's answer encoded as the
/// WebAuthn JSON the server verifies, and the system sheet's failures mapped to stable codes. No server.
@Suite("Passkey ceremonies in the app")
struct PasskeyCeremonyTests {
    static let creation = PasskeyJSON.CreationOptions(
        challenge: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", rp: .init(id: "login.example.com", name: "Tessera"),
        user: .init(id: "_-_-", name: "ines@example.com", displayName: "Ines"), pubKeyCredParams: [.init(alg: -7)], timeout: 300_000,
        excludeCredentials: [.init(id: "AQID", transports: ["internal"])], authenticatorSelection: .init(userVerification: "required"), attestation: "none"
    )

    @Test("creation options: RP ID, challenge and user handle as bytes (base64url, - and _ included), the excluded IDs, UV required")
    func creationRequest() throws {
        let request = try PasskeyCeremony.creationRequest(Self.creation)
        #expect(request.relyingPartyId == "login.example.com" && request.userName == "ines@example.com" && request.requiresUserVerification)
        #expect(request.challenge == Data(0..<32) && request.userId == Data([0xff, 0xef, 0xfe]) && request.excludedCredentialIds == [Data([1, 2, 3])])
        var preferred = Self.creation
        preferred.authenticatorSelection = .init(userVerification: "preferred")
        #expect(try PasskeyCeremony.creationRequest(preferred).requiresUserVerification == false)
    }

    @Test("options with a member that is not base64url (padding, +, /, junk) are invalidResponse (9102) naming it")
    func badOptions() {
        for bad in ["AAE=", "AA+B", "AA/B", "not base64!"] {
            var options = Self.creation
            options.challenge = bad
            #expect { _ = try PasskeyCeremony.creationRequest(options) } throws: {
                ($0 as? TesseraError)?.code == .invalidResponse && ($0 as? TesseraError)?.message.contains("challenge") == true
            }
        }
        let request = PasskeyJSON.RequestOptions(challenge: "AAAA", timeout: 1, rpId: "login.example.com", allowCredentials: [.init(id: "a=", transports: nil)], userVerification: "required")
        #expect { _ = try PasskeyCeremony.assertionRequest(request) } throws: { ($0 as? TesseraError)?.message.contains("allowCredentials") == true }
    }

    @Test("the platform's answers become RegistrationResponseJSON and AuthenticationResponseJSON: base64url without padding, id = rawId, type public-key, no transports member when none")
    func responses() throws {
        let created = PasskeyCeremony.registrationResponse(PasskeyCreation(
            credentialId: Data([0xfb, 0xff]), clientDataJSON: Data("{}".utf8), attestationObject: Data([0xa0])
        ))
        #expect(created.id == "-_8" && created.rawId == "-_8" && created.type == "public-key")
        #expect(created.response.clientDataJSON == "e30" && created.response.attestationObject == "oA" && created.response.transports == nil)
        let asserted = PasskeyCeremony.authenticationResponse(PasskeyAssertion(
            credentialId: Data([1]), clientDataJSON: Data([2]), authenticatorData: Data([3]), signature: Data([4]), userHandle: nil
        ))
        #expect(asserted.response.userHandle == nil && asserted.response.authenticatorData == "Aw" && asserted.response.signature == "BA")
        let json = String(decoding: try JSONEncoder().encode(asserted), as: UTF8.self)
        #expect(!json.contains("userHandle"), "an absent user handle is left out, as toJSON() does")
    }

    @Test("the sheet's failures: canceled (1001) is 9105, matchedExcludedCredential (1006) is 7304, others 9104 naming the code")
    func failures() {
        #expect(PasskeyCeremony.platformFailure(code: 1001, description: "").code == .passkeyCanceled)
        #expect(PasskeyCeremony.platformFailure(code: 1006, description: "").code == .passkeyExists)
        let other = PasskeyCeremony.platformFailure(code: 1004, description: "failed")
        #expect(other.code == .localFailure && other.message.contains("1004"))
    }

    @Test("PasskeyAttestationSettings: members left out take their defaults; an explicit null is refused")
    func attestationSettingsDecoding() throws {
        let empty = try JSONDecoder().decode(PasskeyAttestationSettings.self, from: Data("{}".utf8))
        #expect(empty == PasskeyAttestationSettings())
        for member in ["attestation", "trustRoots", "allowedAAGUIDs"] {
            #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode(PasskeyAttestationSettings.self, from: Data("{\"\(member)\": null}".utf8)) }
        }
    }
}
