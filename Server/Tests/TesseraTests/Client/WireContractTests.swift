import Foundation
import Testing
import TesseraCore
@testable import TesseraServer

/// The SDK's wire types (TesseraCore) against the OpenAPI document: every property the SDK sends or
/// reads is in the schema, and every property the schema requires is there.
@Suite("SDK wire types match the OpenAPI document")
struct WireContractTests {
    nonisolated(unsafe) static let schemas: [String: [String: Any]] = {
        let document = try! JSONSerialization.jsonObject(with: OpenAPIDocument.data) as! [String: Any]
        return (document["components"] as! [String: Any])["schemas"] as! [String: [String: Any]]
    }()

    static func keys(_ value: some Encodable) throws -> Set<String> {
        Set((try JSONSerialization.jsonObject(with: try JSONEncoder().encode(value)) as! [String: Any]).keys)
    }

    static let samples: [(String, any Encodable & Sendable)] = [
        ("SendOTPRequest", SendOTPRequest(sendType: .email, sendTarget: "a@example.com", purpose: .signup)),
        ("SendOTPResponse", SendOTPResponse(sendTarget: "a@example.com", expiresIn: 300, resendAfter: 30)),
        ("VerifyOTPRequest", VerifyOTPRequest(sendType: .sms, sendTarget: "+41791234567", otpNumber: "123456", purpose: .recovery)),
        ("VerifyOTPResponse", VerifyOTPResponse(disposeToken: "tdt_x", expiresIn: 600)),
        ("Problem", Problem(code: .otpInvalid, status: 400, title: "t", detail: "d", field: "f", remainingAttempts: 1, retryAfter: 2, requestId: "r")),
        // The admin API's bodies, shared by the server and `tessera admin`.
        ("CreateClientRequest", CreateClientRequest(name: "App", bundleIds: ["com.example.app"])),
        ("AddNodeRequest", AddNodeRequest(url: "https://node1.example.com:8181", publicKey: "a2V5", name: "node1")),
        ("TOTPResetRequest", TOTPResetRequest(clientKey: "tck_x", userKey: "u")),
        ("RotatedKey", RotatedKey(kid: "k1")),
        ("NodeList", AdminNodeList(serverKey: "a2V5", nodes: [])),
    ]

    @Test("properties and required members agree", arguments: samples.map(\.0))
    func agree(schemaName: String) throws {
        let sample = try #require(Self.samples.first { $0.0 == schemaName }?.1)
        let schema = try #require(Self.schemas[schemaName])
        let properties = Set((schema["properties"] as? [String: Any] ?? [:]).keys)
        let required = Set(schema["required"] as? [String] ?? [])
        let encoded = try Self.keys(sample)
        #expect(encoded.isSubset(of: properties), "not in the schema: \(encoded.subtracting(properties))")
        #expect(required.isSubset(of: encoded), "required but not sent: \(required.subtracting(encoded))")
    }

    @Test("enums agree")
    func enums() throws {
        #expect(Self.schemas["OTPChannel"]?["enum"] as? [String] == OTPChannel.allCases.map(\.rawValue))
        #expect(Self.schemas["OTPPurpose"]?["enum"] as? [String] == OTPPurpose.allCases.map(\.rawValue))
    }
}
