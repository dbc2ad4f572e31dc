import TesseraCore

/// What ``TesseraClient/requestAppAttestAssertion(clientData:using:)`` found: the server accepted an assertion of the
/// device's App Attest key, or the device cannot make one.
public enum AppAttestAssertion: Sendable, Equatable {
    /// The server verified the assertion; its counter is now the device's stored one.
    case asserted(AppAttestAssertionResult)
    /// This device has no App Attest (the Simulator, an older device); nothing was sent. What that means for the
    /// call the assertion was for is the client's policy on the server.
    case unsupported
}
