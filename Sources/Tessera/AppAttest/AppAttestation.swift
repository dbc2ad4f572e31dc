import TesseraCore

/// What ``TesseraClient/requestAppAttestation(using:)`` found: the device attested its App Attest key, or it cannot.
public enum AppAttestation: Sendable, Equatable {
    /// The server verified Apple's attestation and stored the key: the device's state as the server now has it.
    case attested(AppAttestDeviceState)
    /// This device has no App Attest (the Simulator, an older device, an unsupported app extension); nothing was sent.
    /// Whether the app may go on without it is the client's policy on the server: `reported` takes such a device,
    /// `required` will refuse it where it asks for an attestation.
    case unsupported
}
