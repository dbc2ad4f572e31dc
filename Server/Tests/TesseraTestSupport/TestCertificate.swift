import Foundation
import TesseraServer

/// A self-signed certificate for `localhost`, 127.0.0.1 and ::1, made with `openssl` into a new
/// temporary directory.
public struct TestCertificate: Sendable {
    /// The temporary directory holding `cert.pem` and `key.pem`.
    public let directory: String
    /// The certificate file (PEM).
    public var certificate: String { directory + "/cert.pem" }
    /// The private key file (PEM).
    public var key: String { directory + "/key.pem" }
    /// Both files, as the server configuration takes them.
    public var files: TLSFiles { TLSFiles(certificate: certificate, key: key) }

    /// Makes a new certificate and key with `openssl req`.
    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let (status, output) = try ChildProcess.runBlocking("/usr/bin/env", [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
            "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem",
        ])
        guard status == 0 else { throw ConfigurationError("openssl req failed (\(status)): \(output)") }
    }

    /// Deletes the directory.
    public func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
