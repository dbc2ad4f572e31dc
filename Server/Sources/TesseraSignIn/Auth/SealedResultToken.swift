import Crypto
import Foundation

/// A relying party's result token kept in its channel row until the long-poll collects it:
/// AES-GCM under the token seal key, bound to the channel ID.
package struct SealedResultToken: Sendable {
    package let key: SymmetricKey

    package init(key: SymmetricKey) {
        self.key = key
    }

    package func seal(_ token: String, channelId: String) throws -> String {
        let box = try AES.GCM.seal(Data(token.utf8), using: key, authenticating: Data(channelId.utf8))
        // `combined` is nil only for nonces of a non-standard size, which `seal` does not make.
        guard let combined = box.combined else { throw AppError.internalError }
        return combined.base64EncodedString()
    }

    /// The token, or nil when `sealed` does not open under this key for this channel.
    package func open(_ sealed: String, channelId: String) -> String? {
        guard let combined = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: combined),
              let opened = try? AES.GCM.open(box, using: key, authenticating: Data(channelId.utf8))
        else { return nil }
        return String(decoding: opened, as: UTF8.self)
    }
}
