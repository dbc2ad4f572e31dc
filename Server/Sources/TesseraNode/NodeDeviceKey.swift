/// What ``NodeService/attest(_:)`` reads about a device.
struct NodeDeviceKey: Sendable {
    /// The device key, X9.63 base64.
    var deviceKey: String
    /// `active` or `revoked`.
    var status: String
    /// Whether the device's client requires an App Attest attestation the node verified itself.
    var appAttestRequired: Bool
    /// Whether the node holds such an attestation (its outcome is `verified`).
    var appAttested: Bool
}
