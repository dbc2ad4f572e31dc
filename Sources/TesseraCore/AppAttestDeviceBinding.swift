import Crypto

/// How an App Attest challenge is bound to the Tessera device key it is issued for, so that anyone holding the
/// device's key — a verifier node that never saw the challenge issued — can check that an attestation was made for
/// that device and not copied from another: the challenge's 32 bytes are 16 random bytes followed by the first 16
/// bytes of SHA-256 of the device key (X9.63 bytes). The app hashes the challenge into `clientDataHash` as for any
/// challenge, so the attestation's nonce commits to the device key.
public enum AppAttestDeviceBinding {
    /// The length of a bound challenge.
    public static let challengeLength = 32

    /// A challenge for the device key `deviceKey` (X9.63 bytes) from `random` (its first 16 bytes are used).
    public static func challenge(random: [UInt8], deviceKey: [UInt8]) -> [UInt8] {
        precondition(random.count >= 16, "a bound challenge needs 16 random bytes")
        return Array(random.prefix(16)) + digest(deviceKey)
    }

    /// The challenge of an attestation sent with an enrolment of the device key `deviceKey` (X9.63 bytes) that uses up
    /// `secret`: the dispose token of a sign-up or a re-registration, or the session token of a session that registers
    /// its (one) device key. The first 16 bytes of SHA-256("tessera app-attest enrolment" ‖ 0x00 ‖ the secret's UTF-8
    /// bytes) followed by the key's 16 bytes, as in ``challenge(random:deviceKey:)``. The app computes it itself, so
    /// the enrolment needs no challenge call: the secret comes from the server's CSPRNG, is recent (a dispose token
    /// lives minutes, a session registers its device key within its first 15 minutes) and serves one enrolment only,
    /// which makes the challenge fresh and single-use like an issued one. Its hash reveals nothing of the secret.
    public static func enrolmentChallenge(secret: String, deviceKey: [UInt8]) -> [UInt8] {
        challenge(random: Array(SHA256.hash(data: Array(enrolmentLabel.utf8) + [0] + Array(secret.utf8))), deviceKey: deviceKey)
    }

    /// The domain separation of ``enrolmentChallenge(secret:deviceKey:)``.
    private static let enrolmentLabel = "tessera app-attest enrolment"

    /// Whether `challenge` is bound to the device key `deviceKey` (X9.63 bytes).
    public static func binds(_ challenge: [UInt8], deviceKey: [UInt8]) -> Bool {
        challenge.count == challengeLength && Array(challenge.suffix(16)) == digest(deviceKey)
    }

    /// The first 16 bytes of SHA-256 of the key.
    private static func digest(_ deviceKey: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: deviceKey).prefix(16)) }
}
