import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOCore
import NIOSSL

/// A PEM certificate chain and private key to serve HTTPS with: `tls.certificate` and `tls.key`
/// for `tessera serve`, `--tls-certificate` and `--tls-key` for `tessera node`.
public struct TLSFiles: Sendable, Equatable {
    /// PEM file with the server certificate first, then any intermediates.
    public var certificate: String
    /// PEM file with the private key.
    public var key: String
    /// How the two are named to the user in errors (configuration keys or flags).
    private var certificateName = "tls.certificate"
    private var keyName = "tls.key"

    /// - Parameters: `certificateName` and `keyName` name the settings in error messages.
    public init(certificate: String, key: String, certificateName: String = "tls.certificate", keyName: String = "tls.key") {
        self.certificate = certificate
        self.key = key
        self.certificateName = certificateName
        self.keyName = keyName
    }

    /// The same two files (the names used in messages do not count).
    public static func == (left: TLSFiles, right: TLSFiles) -> Bool { left.certificate == right.certificate && left.key == right.key }

    /// Both paths or neither: nil when neither is given, a ``ConfigurationError`` naming the missing
    /// one when only one is, else the checked files (see ``serverConfiguration()``).
    public static func optional(
        certificate: String?, key: String?, certificateName: String = "tls.certificate", keyName: String = "tls.key"
    ) throws -> TLSFiles? {
        switch (certificate, key) {
        case (nil, nil): return nil
        case (.some, nil): throw ConfigurationError("\(keyName) is required with \(certificateName)")
        case (nil, .some): throw ConfigurationError("\(certificateName) is required with \(keyName)")
        case let (.some(certificate), .some(key)):
            let files = TLSFiles(certificate: certificate, key: key, certificateName: certificateName, keyName: keyName)
            _ = try files.serverConfiguration()
            return files
        }
    }

    /// Reads both files into a server TLS configuration and makes a TLS context from it; any
    /// failure is a ``ConfigurationError`` naming the setting.
    public func serverConfiguration() throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificate) } catch {
            throw ConfigurationError("\(certificateName): no PEM certificate could be read from \(certificate) (\(error))")
        }
        guard !chain.isEmpty else { throw ConfigurationError("\(certificateName): \(certificate) holds no PEM certificate") }
        let privateKey: NIOSSLPrivateKey
        do { privateKey = try NIOSSLPrivateKey(file: key, format: .pem) } catch {
            throw ConfigurationError("\(keyName): no PEM private key could be read from \(key) (\(error))")
        }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey)
        )
        do { _ = try NIOSSLContext(configuration: configuration) } catch {
            throw ConfigurationError("\(certificateName), \(keyName): no TLS context could be made from \(certificate) and \(key) (\(error))")
        }
        return configuration
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with these extra channel handlers, over TLS when `tls` is given.
    public static func http1(tls: TLSFiles?, additionalChannelHandlers: @autoclosure @escaping @Sendable () -> [any RemovableChannelHandler] = []) throws -> HTTPServerBuilder {
        let http1 = HTTPServerBuilder.http1(configuration: .init(additionalChannelHandlers: additionalChannelHandlers()))
        guard let tls else { return http1 }
        return try .tls(http1, tlsConfiguration: try tls.serverConfiguration())
    }
}
