#if canImport(DeviceCheck)
import DeviceCheck
import Foundation

/// Apple's App Attest through DeviceCheck's `DCAppAttestService.shared`: the ``AppAttestProvider`` to pass to
/// ``TesseraClient/requestAppAttestation(using:)`` and ``TesseraClient/requestAppAttestAssertion(clientData:using:)``.
///
/// The app needs the App Attest entitlement (`com.apple.developer.devicecheck.appattest-environment`), and the
/// server's App Attest settings for the client name the app's team ID, bundle ID and the same environment: see
/// <doc:AppAttest>. `DCError`s become ``TesseraError``s as ``AppAttestProvider`` says.
public struct AppleAppAttestProvider: AppAttestProvider {
    /// A provider over `DCAppAttestService.shared`.
    public init() {}

    /// `DCAppAttestService.shared.isSupported`: false on the Simulator and on devices without App Attest.
    public var isSupported: Bool { DCAppAttestService.shared.isSupported }

    /// `DCAppAttestService.shared.generateKey()`.
    public func generateKey() async throws -> String {
        do {
            return try await DCAppAttestService.shared.generateKey()
        } catch {
            throw Self.failure(error, step: "generateKey")
        }
    }

    /// `DCAppAttestService.shared.attestKey(_:clientDataHash:)`.
    public func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        do {
            return try await DCAppAttestService.shared.attestKey(keyId, clientDataHash: clientDataHash)
        } catch {
            throw Self.failure(error, step: "attestKey")
        }
    }

    /// `DCAppAttestService.shared.generateAssertion(_:clientDataHash:)`.
    public func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        do {
            return try await DCAppAttestService.shared.generateAssertion(keyId, clientDataHash: clientDataHash)
        } catch {
            throw Self.failure(error, step: "generateAssertion")
        }
    }

    /// A `DCError` by its code (``AppAttestErrorCode/failure(code:step:description:)``), anything else `ErrorCode.localFailure`.
    static func failure(_ error: any Error, step: String) -> TesseraError {
        let failure = error as NSError
        guard failure.domain == DCErrorDomain else {
            return TesseraError(code: .localFailure, message: "App Attest \(step) failed: \(failure.localizedDescription)")
        }
        return AppAttestErrorCode.failure(code: failure.code, step: step, description: failure.localizedDescription)
    }
}
#endif
