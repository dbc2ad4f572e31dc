import Foundation
import Logging
import TesseraWebAuthn
import X509

extension ServerConfiguration {
    /// The FIDO metadata BLOB of `passkeys.metadataBlob`, its chain and signature verified against
    /// `passkeys.metadataRoot` (the FIDO root by default) at `now`; nil without a BLOB. A file that cannot be read
    /// or does not verify stops the start, naming the key and the file; a BLOB past its `nextUpdate` is used with a
    /// warning (download a fresh one: models may have been revoked since).
    func passkeyMetadata(now: Date, logger: Logger) async throws -> AuthenticatorMetadata? {
        guard let path = passkeyMetadataBlob else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError("passkeys.metadataBlob: cannot read \(path)")
        }
        let root: Certificate
        if let rootPath = passkeyMetadataRoot {
            guard let pem = FileManager.default.contents(atPath: rootPath).flatMap({ String(data: $0, encoding: .utf8) }),
                  let parsed = try? Certificate(pemEncoded: pem)
            else { throw ConfigurationError("passkeys.metadataRoot: no PEM certificate could be read from \(rootPath)") }
            root = parsed
        } else {
            root = try FIDOMetadataRoot.certificate()
        }
        let metadata: AuthenticatorMetadata
        do {
            metadata = try await AuthenticatorMetadata(jwt: text, root: root, time: now)
        } catch {
            throw ConfigurationError("passkeys.metadataBlob: \(path) is not a valid FIDO metadata BLOB: \(error)")
        }
        let today = ISO8601DateFormatter.string(from: now, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
        if metadata.nextUpdate < today {
            logger.warning("the FIDO metadata BLOB is past its nextUpdate: download a fresh one", metadata: [
                "file": "\(path)", "no": "\(metadata.number)", "nextUpdate": "\(metadata.nextUpdate)",
            ])
        }
        logger.info("FIDO metadata loaded", metadata: ["no": "\(metadata.number)", "models": "\(metadata.entries.count)"])
        return metadata
    }
}
