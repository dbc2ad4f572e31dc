import Crypto
import Foundation

/// AES-GCM sealing in the combined form (nonce, ciphertext, tag), as the SDK and the server store
/// sealed secrets. The combined form exists for the standard 96-bit nonce that `seal` draws; its
/// absence is reported as an error rather than forced.
public enum Sealing {
    /// The error when a sealed box has no combined form (never for a 96-bit nonce).
    public struct NoCombinedForm: Error {}

    /// `data` sealed under `key`, authenticating `associatedData`, in the combined form.
    public static func seal(_ data: Data, using key: SymmetricKey, authenticating associatedData: Data = Data()) throws -> Data {
        guard let combined = try AES.GCM.seal(data, using: key, authenticating: associatedData).combined else { throw NoCombinedForm() }
        return combined
    }
}
