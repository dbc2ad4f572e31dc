import Foundation
import Testing
import TesseraCore

/// The client policy's JSON, as the admin API reads it: a missing member takes its default, a `null` or a wrong
/// type is refused (the OpenAPI schema has no nullable member), at every level.
@Suite("Client policy decoding")
struct ClientPolicyDecodingTests {
    static func decode(_ json: String) throws -> ClientPolicy { try JSONDecoder().decode(ClientPolicy.self, from: Data(json.utf8)) }

    @Test("{} is the default policy; members given are kept, passkeyNodeVerification among them")
    func defaults() throws {
        #expect(try Self.decode("{}") == ClientPolicy())
        let policy = try Self.decode(#"{"passkeyNodeVerification": true, "pin": {"minLength": 8}, "devicesPerUser": 3}"#)
        #expect(policy.passkeyNodeVerification && policy.pin.minLength == 8 && policy.devicesPerUser == 3 && policy.pin.maxLength == PINRules().maxLength)
    }

    @Test("null or a wrong type is refused", arguments: [
        #"{"passkeyNodeVerification": null}"#, #"{"passkeyNodeVerification": "yes"}"#, #"{"allowDevicePasscodeFallback": null}"#,
        #"{"pin": null}"#, #"{"pin": {"minLength": null}}"#, #"{"password": {"requireDigit": null}}"#, #"{"devicesPerUser": null}"#,
    ])
    func refused(_ json: String) {
        #expect(throws: DecodingError.self) { try Self.decode(json) }
    }
}
