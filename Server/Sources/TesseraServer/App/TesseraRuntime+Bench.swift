import Crypto
import Foundation
import SQLKit
import TesseraCore

/// Benchmark support (`tessera bench totp-bodies --create`): many users with known TOTP secrets,
/// written straight into storage, since enrolling tens of thousands of devices through the API
/// would take minutes. Never used by the server itself.
extension TesseraRuntime {
    /// The TOTP secret of bench user `index`: HMAC-SHA1 of its name under a fixed, public key.
    public static func benchTOTPSecret(_ index: Int) -> [UInt8] {
        Array(HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(String(format: "totp-%05d", index).utf8), using: SymmetricKey(data: Data("tessera-bench".utf8))
        ))
    }

    /// Creates users `totp-00000`… of `clientKey`, each with one active device holding
    /// ``benchTOTPSecret(_:)``. Existing ones are left alone.
    public func createTOTPBenchUsers(clientKey: String, count: Int) async throws {
        guard let client = try await clients.list().first(where: { $0.clientKey == clientKey }) else {
            throw AppError(.clientUnknown, .notFound, "No such client")
        }
        let publicKey = P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString()
        let now = clock.now(), totpKey = keys.totpKey
        for batch in stride(from: 0, to: count, by: 1000) {
            try await database.transaction { sql in
                for index in batch..<min(count, batch + 1000) {
                    let name = String(format: "totp-%05d", index)
                    let userId = "usr_bench_\(name)", deviceId = "dev_bench_\(name)"
                    let inserted = try await sql.raw(
                        """
                        INSERT INTO users (id, client_id, user_key, name, email, phone, local_auth_type, agreed_at, created_at)
                        VALUES (\(bind: userId), \(bind: client.id), \(bind: name), 'Bench', \(bind: "\(name)@bench.invalid"),
                                \(bind: String(format: "+1555%07d", index)), 'NONE', \(bind: now), \(bind: now))
                        ON CONFLICT DO NOTHING RETURNING id
                        """
                    ).first() != nil
                    guard inserted else { continue }
                    let sealed = try AES.GCM.seal(Data(Self.benchTOTPSecret(index)), using: totpKey, authenticating: Data(deviceId.utf8))
                        .combined!.base64EncodedString()
                    try await sql.raw(
                        """
                        INSERT INTO devices (id, user_id, client_id, device_key, uv_key, os, app_version, push_token, totp_secret_sealed, status, created_at)
                        VALUES (\(bind: deviceId), \(bind: userId), \(bind: client.id), \(bind: publicKey), \(bind: publicKey), 'bench', 'bench', '',
                                \(bind: sealed), 'active', \(bind: now))
                        """
                    ).run()
                }
            }
        }
    }
}
