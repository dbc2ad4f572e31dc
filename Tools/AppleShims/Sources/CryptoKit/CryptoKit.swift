// Transcribed from Apple's CryptoKit documentation (SecureEnclave): only the symbols
// Sources/Tessera/Apple/Platform uses. On Apple platforms swift-crypto's `Crypto` re-exports
// CryptoKit, so P256 here is swift-crypto's, as it is CryptoKit's there.
@_exported import Crypto
import Foundation
import LocalAuthentication
import Security

public enum SecureEnclave {
    public static var isAvailable: Bool { fatalError() }

    public enum P256 {
        public enum Signing {
            public struct PrivateKey {
                public init(
                    compactRepresentable: Bool = true, accessControl: SecAccessControl, authenticationContext: LAContext? = nil
                ) throws { fatalError() }
                public init(dataRepresentation: Data, authenticationContext: LAContext? = nil) throws { fatalError() }
                public var dataRepresentation: Data { fatalError() }
                public var publicKey: Crypto.P256.Signing.PublicKey { fatalError() }
                public func signature<D: DataProtocol>(for data: D) throws -> Crypto.P256.Signing.ECDSASignature { fatalError() }
            }
        }
    }
}
