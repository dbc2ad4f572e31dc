import Foundation
import TesseraCore
import TesseraWebAuthn

/// The apps that may use the server's passkeys as their own (W3C WebAuthn's RP ID is the server's domain):
/// set per client by the admin, checked strictly, and published as Apple's `webcredentials` association
/// (`/.well-known/apple-app-site-association`) and Android's Digital Asset Links statement
/// (`/.well-known/assetlinks.json`, `delegate_permission/common.get_login_creds`). An Android app's
/// passkey ceremonies carry the origin `android:apk-key-hash:<SHA-256 of its signing certificate>`, accepted
/// for the client that lists the app.
package struct PasskeyAppLinksService: Sendable {
    package let database: any Database
    package let repository: any PasskeyAppLinksRepository
    package let clock: WallClock

    package init(database: any Database, repository: any PasskeyAppLinksRepository = SQLPasskeyAppLinksRepository(), clock: WallClock) {
        self.database = database
        self.repository = repository
        self.clock = clock
    }

    /// At most this many Apple app IDs and Android apps per client, and fingerprints per Android app.
    static let maxEntries = 20, maxFingerprints = 5

    /// The client's links.
    package func links(client: Client) async throws -> PasskeyAppLinks {
        let repository = self.repository
        return try await database.read { sql in try await repository.links(clientId: client.id, in: sql) }
    }

    /// Replaces the client's links after checking each entry (1005 naming the first one that is wrong); the
    /// stored form: fingerprints upper case, duplicates dropped.
    package func set(_ links: PasskeyAppLinks, client: Client) async throws -> PasskeyAppLinks {
        let checked = try Self.checked(links), repository = self.repository, now = clock.now()
        try await database.transaction { sql in try await repository.save(clientId: client.id, links: checked, now: now, in: sql) }
        return checked
    }

    /// `apple-app-site-association`: every enabled client's Apple app IDs under `webcredentials`.
    package func appleAssociation() async throws -> Data {
        struct Association: Encodable {
            struct Apps: Encodable { var apps: [String] }
            var webcredentials: Apps
        }
        var apps: [String] = []
        for links in try await enabled() { for app in links.appleAppIds where !apps.contains(app) { apps.append(app) } }
        return try JSONEncoder().encode(Association(webcredentials: .init(apps: apps)))
    }

    /// `assetlinks.json`: one `get_login_creds` statement per enabled client's Android app.
    package func assetLinks() async throws -> Data {
        struct Statement: Encodable {
            struct Target: Encodable {
                var namespace = "android_app"
                var package_name: String
                var sha256_cert_fingerprints: [String]
            }
            var relation = ["delegate_permission/common.get_login_creds"]
            var target: Target
        }
        let statements = try await enabled().flatMap(\.androidApps).map {
            Statement(target: .init(package_name: $0.packageName, sha256_cert_fingerprints: $0.sha256CertFingerprints))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return try encoder.encode(statements)
    }

    /// The WebAuthn origins of the client's Android apps (`android:apk-key-hash:` and the base64url fingerprint).
    package func androidOrigins(clientId: String) async throws -> Set<String> {
        let repository = self.repository
        let links = try await database.read { sql in try await repository.links(clientId: clientId, in: sql) }
        return Set(links.androidApps.flatMap(\.sha256CertFingerprints).compactMap(Self.origin(fingerprint:)))
    }

    private func enabled() async throws -> [PasskeyAppLinks] {
        let repository = self.repository
        return try await database.read { sql in try await repository.enabled(in: sql) }
    }

    /// `android:apk-key-hash:` with the fingerprint's 32 bytes in base64url.
    static func origin(fingerprint: String) -> String? {
        let bytes = fingerprint.split(separator: ":").compactMap { UInt8($0, radix: 16) }
        guard bytes.count == 32 else { return nil }
        return "android:apk-key-hash:" + Base64URL.encode(bytes)
    }

    /// The links as stored, or 1005 naming the first wrong member.
    static func checked(_ links: PasskeyAppLinks) throws -> PasskeyAppLinks {
        guard links.appleAppIds.count <= maxEntries else { throw AppError.invalidField("appleAppIds", "appleAppIds holds at most \(maxEntries) app IDs") }
        guard links.androidApps.count <= maxEntries else { throw AppError.invalidField("androidApps", "androidApps holds at most \(maxEntries) apps") }
        var result = PasskeyAppLinks()
        for (index, id) in links.appleAppIds.enumerated() {
            guard isAppleAppId(id) else {
                throw AppError.invalidField("appleAppIds[\(index)]", "appleAppIds[\(index)] must be a team ID (10 capitals or digits), a dot and a bundle ID, e.g. ABCDE12345.com.example.app")
            }
            if !result.appleAppIds.contains(id) { result.appleAppIds.append(id) }
        }
        for (index, app) in links.androidApps.enumerated() {
            guard isPackageName(app.packageName) else {
                throw AppError.invalidField("androidApps[\(index)].packageName", "androidApps[\(index)].packageName must be an Android package name, e.g. com.example.app")
            }
            guard (1...maxFingerprints).contains(app.sha256CertFingerprints.count) else {
                throw AppError.invalidField("androidApps[\(index)].sha256CertFingerprints", "androidApps[\(index)].sha256CertFingerprints must hold 1 to \(maxFingerprints) fingerprints")
            }
            var fingerprints: [String] = []
            for (position, fingerprint) in app.sha256CertFingerprints.enumerated() {
                let upper = fingerprint.uppercased()
                guard origin(fingerprint: upper) != nil, upper.utf8.count == 95, upper.split(separator: ":").allSatisfy({ $0.utf8.count == 2 }) else {
                    throw AppError.invalidField(
                        "androidApps[\(index)].sha256CertFingerprints[\(position)]",
                        "androidApps[\(index)].sha256CertFingerprints[\(position)] must be 32 hex bytes joined by colons (AB:CD:…), as keytool prints a SHA-256 fingerprint"
                    )
                }
                if !fingerprints.contains(upper) { fingerprints.append(upper) }
            }
            if let same = result.androidApps.firstIndex(where: { $0.packageName == app.packageName }) {
                result.androidApps[same].sha256CertFingerprints += fingerprints.filter { !result.androidApps[same].sha256CertFingerprints.contains($0) }
            } else {
                result.androidApps.append(.init(packageName: app.packageName, sha256CertFingerprints: fingerprints))
            }
        }
        return result
    }

    /// `TEAMID.bundle.id`: ten capitals or digits, a dot, then a bundle ID (letters, digits, `.`, `-`), 255 at most.
    static func isAppleAppId(_ id: String) -> Bool {
        let parts = id.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard id.utf8.count <= 255, parts.count == 2, parts[0].utf8.count == 10,
              parts[0].unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) }) else { return false }
        let bundle = parts[1]
        return !bundle.isEmpty && !bundle.hasPrefix(".") && !bundle.hasSuffix(".") && !bundle.contains("..")
            && bundle.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-") }
    }

    /// An Android package name: two or more dot-separated segments, each a letter then letters, digits or `_`.
    static func isPackageName(_ name: String) -> Bool {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        return name.utf8.count <= 255 && segments.count >= 2 && segments.allSatisfy { segment in
            guard let first = segment.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
            return segment.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
        }
    }
}
