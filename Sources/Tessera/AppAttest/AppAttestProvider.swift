import Foundation

/// The seam between the SDK and Apple's App Attest (`DCAppAttestService` of the DeviceCheck framework):
/// `AppleAppAttestProvider` on Apple platforms, a fake in tests (Apple's service cannot run on Linux). The SDK
/// does the rest: the server's challenges, the client data and its hash, the calls to the server, the stored key ID.
///
/// The members are `DCAppAttestService`'s. A provider throws ``TesseraError``: `ErrorCode.appAttestDeviceNotAttested`
/// when the key is not valid on this device any more (`DCError.invalidKey`), `ErrorCode.networkError` when Apple's
/// service could not be reached (`DCError.serverUnavailable`), and `ErrorCode.localFailure` for any other failure on
/// the device. Any other error is reported as `ErrorCode.localFailure`.
public protocol AppAttestProvider: Sendable {
    /// Whether this device can use App Attest: false on the Simulator, on devices without a Secure Enclave, and in
    /// app extensions other than the ones Apple lists.
    var isSupported: Bool { get }
    /// Creates a new App Attest key in the Secure Enclave and returns its key ID (base64 of 32 bytes).
    func generateKey() async throws -> String
    /// Asks Apple to attest the key `keyId`; Apple's certificate binds `clientDataHash` to it.
    /// - Returns: The attestation object (CBOR) for the server.
    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data
    /// Signs `clientDataHash` with the attested key `keyId`.
    /// - Returns: The assertion object (CBOR) for the server.
    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data
}
