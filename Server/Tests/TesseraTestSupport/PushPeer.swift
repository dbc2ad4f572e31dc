import Foundation
import TesseraCore
import TesseraServer

/// One APNs + FCM peer (Tests/Fixtures/push_peer.py under TESSERA_TEST_PYTHON, hypercorn over
/// HTTP/2 and TLS) in its own temporary directory, with a self-signed certificate, an APNs .p8 key
/// and an FCM service-account key made with openssl for this test.
public final class PushPeer: Sendable {
    /// Why the peer cannot run.
    public struct Unavailable: Error, CustomStringConvertible {
        /// The reason.
        public var description: String
    }

    static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fixtures/push_peer.py").path
    /// The APNs key ID, team ID and topic, and the FCM service account, the peer checks.
    public static let keyId = "ABC123DEFG"
    public static let teamId = "TEAM123456"
    public static let topic = "com.example.app"
    public static let fcmEmail = "tessera-push@example-project.iam.gserviceaccount.com"

    /// The peer's temporary directory (keys, certificate, records, log).
    public let directory: String
    /// The loopback port it listens on.
    public let port: Int
    /// Its TLS certificate (trust it through `pushCAFile`).
    public let certificate: TestCertificate
    private let process: ChildProcess  // its stdin is a pipe: the peer exits when it closes

    /// The base URL for the APNs and FCM settings.
    public var baseURL: String { "https://localhost:\(port)" }
    /// The APNs .p8 key (PEM).
    public var apnsKey: String { (try? String(contentsOfFile: directory + "/apns.p8", encoding: .utf8)) ?? "" }
    /// The FCM service account's private key (PEM).
    public var fcmKey: String { (try? String(contentsOfFile: directory + "/fcm.pem", encoding: .utf8)) ?? "" }
    /// What the peer printed.
    public var log: String { (try? String(contentsOfFile: directory + "/peer.log", encoding: .utf8)) ?? "" }

    /// The Python the peer runs under (TESSERA_TEST_PYTHON with hypercorn, h2 and PyJWT); a test
    /// without it fails naming it (skipped only in `scripts/test.sh --quick`, see ``TestRequirements``).
    public static func requirePython() throws -> String {
        try TestRequirements.python(importing: ["hypercorn", "h2", "jwt"], for: "the APNs/FCM push peer")
    }

    /// Starts the peer; `apns` and `fcm` are the statuses it answers first (then 200), e.g. `["503", "429@120"]`.
    public init(apns: [String] = [], fcm: [String] = []) async throws {
        let python = try Self.requirePython()
        certificate = try TestCertificate()
        directory = certificate.directory
        for command in [
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", directory + "/apns.p8"],
            ["pkey", "-in", directory + "/apns.p8", "-pubout", "-out", directory + "/apns.pub"],
            ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", directory + "/fcm.pem"],
            ["pkey", "-in", directory + "/fcm.pem", "-pubout", "-out", directory + "/fcm.pub"],
        ] {
            try await Self.openssl(command)
        }
        process = try ChildProcess(
            python,
            [
                Self.script, "--dir", directory, "--cert", certificate.certificate, "--key", certificate.key,
                "--apns-key", directory + "/apns.pub", "--apns-kid", Self.keyId, "--apns-team", Self.teamId, "--apns-topic", Self.topic,
                "--fcm-key", directory + "/fcm.pub", "--fcm-email", Self.fcmEmail,
                "--apns-script", apns.joined(separator: ","), "--fcm-script", fcm.joined(separator: ","),
            ],
            stdin: .pipe, stdout: .file(directory + "/peer.log")
        )
        // The peer writes its port file once it listens (bounded wait on that condition).
        guard let found = try await process.portFile(directory + "/port") else {
            let log = (try? String(contentsOfFile: directory + "/peer.log", encoding: .utf8)) ?? ""
            try? process.input?.close()
            process.terminate()
            certificate.remove()
            throw Unavailable(description: "push peer did not start:\n\(log)")
        }
        port = found
    }

    private static func openssl(_ arguments: [String]) async throws {
        let (status, output) = try await ChildProcess.run("/usr/bin/env", ["openssl"] + arguments)
        guard status == 0 else { throw Unavailable(description: "openssl \(arguments[0]) failed: \(output)") }
    }

    /// The requests the peer received, oldest first (one JSON object each).
    public func records() throws -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: directory + "/records.jsonl", encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    /// The push messages (APNs or FCM sends, not token grants) the peer received.
    public func pushes() throws -> [[String: Any]] { try records().filter { ["apns", "fcm"].contains($0["provider"] as? String) } }

    /// Settings that send APNs pushes to this peer.
    public func apnsSettings(baseURL: String? = nil) -> PushSettingsUpdate {
        PushSettingsUpdate(apns: APNsSettingsUpdate(
            teamId: Self.teamId, keyId: Self.keyId, privateKey: apnsKey, topic: Self.topic, environment: .sandbox, baseURL: baseURL ?? self.baseURL
        ))
    }

    /// Settings that send FCM messages to this peer.
    public func fcmSettings() throws -> PushSettingsUpdate {
        let account: [String: String] = [
            "type": "service_account", "client_email": Self.fcmEmail, "private_key": fcmKey, "token_uri": baseURL + "/token",
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: account), as: UTF8.self)
        return PushSettingsUpdate(fcm: FCMSettingsUpdate(projectId: "example-project", serviceAccount: json, baseURL: baseURL))
    }

    /// Ends the peer and removes its directory.
    public func stop() {
        try? process.input?.close()
        process.terminate()
        process.waitUntilExit()
        certificate.remove()
    }
}
