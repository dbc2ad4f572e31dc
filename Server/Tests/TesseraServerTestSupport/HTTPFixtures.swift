import HTTPTypes
import TesseraCore
@testable import TesseraServer

/// Request headers for the server tests.
package enum HTTPFixtures {
    /// The headers an app sends on an unsigned call: JSON, its client key and bundle ID.
    package static func appHeaders(_ client: Client, bundle: String? = nil) -> HTTPFields {
        var fields: HTTPFields = [.contentType: "application/json"]
        fields[HTTPField.Name(TesseraHeader.clientKey)!] = client.clientKey
        fields[HTTPField.Name(TesseraHeader.bundleId)!] = bundle ?? client.bundleIds[0]
        return fields
    }
}
