/// The names of passkey providers by their AAGUID, for people managing their passkeys ("iCloud Keychain",
/// "Google Password Manager"): a bundled copy of the community list that passkey sites use for exactly this
/// (passkeydeveloper/passkey-authenticator-aaguids, names only), refreshed with `scripts/update-aaguid-names.py`.
/// A name is for display only: it is not evidence of the authenticator's model (attestation is).
public enum AuthenticatorNames {
    /// The provider's name for an AAGUID (32 hex digits, with or without dashes, any case); nil when unknown or
    /// all zeros (an authenticator that does not say).
    public static func name(aaguid: String) -> String? {
        AAGUID.bytes(aaguid).flatMap { bundled[AAGUID.hex($0)] }
    }

    /// How many names are bundled.
    public static var count: Int { bundled.count }
}
