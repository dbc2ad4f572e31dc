import Foundation

/// The exact bytes each party signs during an authentication. One definition for the SDK, the
/// server and the nodes, so that none can drift.
public enum AuthStatement {
    /// Signed by the device key when starting; checked by the server and by every node.
    public static func challenge(channelId: String, deviceId: String, challenge: String) -> Data {
        Data("tessera-auth-v1\n\(channelId)\n\(deviceId)\n\(challenge)".utf8)
    }

    /// Signed by the user-verification key after local authentication.
    public static func userVerification(channelId: String, deviceId: String, challenge: String) -> Data {
        Data("tessera-uv-v1\n\(channelId)\n\(deviceId)\n\(challenge)".utf8)
    }

    /// Signed (Ed25519) by a node that vouches for the device in this channel.
    /// With `appAttested`, the node also vouches that it verified an App Attest attestation of the device itself
    /// (a line `app-attest` is added).
    public static func attestation(
        nodeId: String, channelId: String, deviceId: String, challenge: String, signedAt: Int64, appAttested: Bool = false
    ) -> Data {
        Data("tessera-attest-v1\n\(nodeId)\n\(channelId)\n\(deviceId)\n\(challenge)\n\(signedAt)\(appAttested ? "\napp-attest" : "")".utf8)
    }

    /// Signed (Ed25519) by a node that verified a passkey assertion over `challenge` (base64url).
    public static func passkeyAttestation(nodeId: String, passkeyId: String, challenge: String, signCount: Int64, signedAt: Int64) -> Data {
        Data("tessera-passkey-attest-v1\n\(nodeId)\n\(passkeyId)\n\(challenge)\n\(signCount)\n\(signedAt)".utf8)
    }

    /// Signed (Ed25519) by a node that stored a passkey's public key or revocation.
    public static func passkeyReceipt(nodeId: String, passkeyId: String, status: String, keysDigest: String, signedAt: Int64) -> Data {
        Data("tessera-passkey-receipt-v1\n\(nodeId)\n\(passkeyId)\n\(status)\n\(keysDigest)\n\(signedAt)".utf8)
    }

    /// Signed (Ed25519) by a node that stored a device's keys or revocation.
    public static func receipt(nodeId: String, deviceId: String, status: String, keysDigest: String, signedAt: Int64) -> Data {
        Data("tessera-receipt-v1\n\(nodeId)\n\(deviceId)\n\(status)\n\(keysDigest)\n\(signedAt)".utf8)
    }
}
