import Crypto
import Foundation

/// The audit log's hash chain and checkpoint signatures, as docs/audit-log.md specifies them. The
/// server uses it to append; `tessera admin audit verify` uses it to check an export on its own.
public enum AuditChain {
    /// The `prevHash` of the first row.
    public static let genesis = String(repeating: "0", count: 64)

    /// The canonical encoding of a row: for each of seq, time, type, actor, client_id, user_id,
    /// device_id, session_id, details in this order, a 4-byte big-endian length and the field's
    /// UTF-8 bytes (seq and time in decimal); an absent field is the length 0xFFFFFFFF alone.
    public static func canonical(
        seq: Int64, time: Int64, type: String, actor: String, clientId: String?, userId: String?, deviceId: String?, sessionId: String?,
        details: String
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + details.utf8.count)
        for field in [String(seq), String(time), type, actor, clientId, userId, deviceId, sessionId, details] {
            guard let field else {
                bytes.append(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF])
                continue
            }
            let utf8 = Array(field.utf8)
            let count = UInt32(truncatingIfNeeded: utf8.count)
            bytes.append(contentsOf: [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)])
            bytes.append(contentsOf: utf8)
        }
        return bytes
    }

    /// `SHA-256(bytes(prevHash) || canonical)`, lowercase hex. A `prevHash` that is not 64 hex digits hashes as its UTF-8 text.
    public static func hash(prevHash: String, canonical: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(data: hexBytes(prevHash) ?? Array(prevHash.utf8))
        hasher.update(data: canonical)
        return hasher.finalize().hexString
    }

    /// The hash a row must carry.
    public static func hash(of entry: AuditEntry) -> String {
        hash(prevHash: entry.prevHash, canonical: canonical(
            seq: entry.seq, time: entry.time, type: entry.type, actor: entry.actor, clientId: entry.clientId, userId: entry.userId,
            deviceId: entry.deviceId, sessionId: entry.sessionId, details: entry.details
        ))
    }

    /// What a checkpoint signs: the UTF-8 text `tessera-audit-checkpoint-v1\n<seq>\n<hash>\n<time>`.
    public static func checkpointMessage(seq: Int64, hash: String, time: Int64) -> Data {
        Data("tessera-audit-checkpoint-v1\n\(seq)\n\(hash)\n\(time)".utf8)
    }

    /// A key's id: the first 16 hex digits of SHA-256 over its 32 raw bytes.
    public static func keyId(of publicKey: Curve25519.Signing.PublicKey) -> String {
        String(SHA256.hash(data: publicKey.rawRepresentation).hexString.prefix(16))
    }

    /// Signs a checkpoint at (`seq`, `hash`, `time`).
    package static func checkpoint(seq: Int64, hash: String, time: Int64, key: Curve25519.Signing.PrivateKey) throws -> AuditCheckpoint {
        let signature = try key.signature(for: checkpointMessage(seq: seq, hash: hash, time: time))
        return AuditCheckpoint(seq: seq, hash: hash, time: time, keyId: keyId(of: key.publicKey), signature: signature.base64EncodedString())
    }

    package static func hexBytes(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            default: nil
            }
        }
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
