/// What a verified attestation yields, for the caller to store per device.
public struct AppAttestCredential: Sendable, Hashable, CustomStringConvertible {
    /// The key ID: SHA-256 of ``publicKey`` (32 bytes), also the credential ID.
    public let keyId: [UInt8]
    /// The device's P-256 public key, uncompressed X9.62 (`04 ‖ x ‖ y`, 65 bytes), the key later assertions
    /// are verified with.
    public let publicKey: [UInt8]
    /// The attestation's `receipt` (a PKCS #7 message from Apple), for fraud-metric requests to Apple.
    public let receipt: [UInt8]
    /// The environment the attestation was made in (the one the client's settings required).
    public let environment: AppAttestEnvironment
    /// The counter the attestation carried: always 0. The first assertion must carry a greater one.
    public let counter: UInt32

    /// A credential.
    public init(keyId: [UInt8], publicKey: [UInt8], receipt: [UInt8], environment: AppAttestEnvironment, counter: UInt32 = 0) {
        self.keyId = keyId
        self.publicKey = publicKey
        self.receipt = receipt
        self.environment = environment
        self.counter = counter
    }

    /// The key ID in hex, the environment, the counter and the receipt's size (not the receipt itself).
    public var description: String {
        let hex = keyId.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        return "AppAttestCredential(keyId: \(hex), environment: \(environment.rawValue), counter: \(counter), receipt: \(receipt.count) bytes)"
    }
}
