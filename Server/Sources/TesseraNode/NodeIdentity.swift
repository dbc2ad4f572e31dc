import Crypto
import Foundation
import TesseraCore
import TesseraHTTPKit

/// A verifier node's Ed25519 key pair, kept in `<dataDir>/node.key` (mode 0600). The node's ID is
/// derived from the public key, so a node cannot be impersonated by reusing its name.
struct NodeIdentity: Sendable {
    let privateKey: Curve25519.Signing.PrivateKey
    var publicKey: Curve25519.Signing.PublicKey { privateKey.publicKey }
    var publicKeyBase64: String { publicKey.rawRepresentation.base64EncodedString() }
    var nodeId: String { NodeInfo.nodeId(publicKey: publicKey.rawRepresentation) }

    func sign(_ data: Data) throws -> String { try privateKey.signature(for: data).base64EncodedString() }

    /// Loads the key from `directory`, creating it on first start.
    static func loadOrCreate(directory: String) throws -> NodeIdentity {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = (directory as NSString).appendingPathComponent("node.key")
        let text = try KeyFile.readOrCreate(path: path) { Curve25519.Signing.PrivateKey().rawRepresentation.base64EncodedString() }.text
        guard let raw = Data(base64Encoded: text), let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw ConfigurationError("\(path) is not an Ed25519 private key in base64")
        }
        return NodeIdentity(privateKey: key)
    }
}
