import Foundation
@testable import TesseraServer

/// A self-signed certificate for `localhost`, 127.0.0.1 and ::1, made with `openssl` into a new
/// temporary directory.
struct TestCertificate {
    let directory: String
    var certificate: String { directory + "/cert.pem" }
    var key: String { directory + "/key.pem" }
    var files: TLSFiles { TLSFiles(certificate: certificate, key: key) }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
            "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ConfigurationError("openssl req failed (\(process.terminationStatus))") }
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
