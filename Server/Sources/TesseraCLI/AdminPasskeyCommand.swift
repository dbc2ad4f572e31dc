import ArgumentParser
import Foundation
import TesseraCore

/// `tessera admin passkey …`: users' passkeys.
struct PasskeyAdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey", abstract: "Passkeys of users.", subcommands: [List.self, Revoke.self, AppLinks.self, Attestation.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List a user's passkeys.")
        @Option(help: "Client key.") var clientKey: String
        @Option(help: "User key.") var userKey: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let list = try await AdminAPI.connect(options).get(
                "users/\(pathComponent(userKey))/passkeys", query: ["clientKey": clientKey], as: PasskeyList.self
            )
            if json { printJSON(list); return }
            for item in list.passkeys {
                let synced = item.backupEligible ? "synced" : "device-bound"
                let flagged = item.flaggedAt == nil ? "" : "  FLAGGED (counter went back)"
                print("\(item.id)  \(item.name)  \(item.algorithm)  \(synced)  \(item.authenticatorName ?? "aaguid \(item.aaguid)")\(flagged)")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a passkey: it signs in no more.")
        @Argument(help: "Passkey id (pk_…).") var passkeyId: String
        @OptionGroup var options: AdminOptions
        func run() async throws {
            try await AdminAPI.connect(options).send(.DELETE, "passkeys/\(pathComponent(passkeyId))")
            print("revoked \(passkeyId)")
        }
    }

    struct AppLinks: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "app-links",
            abstract: "Show or replace the apps that may use the server's passkeys (apple-app-site-association, assetlinks.json).",
            discussion: """
                Without --apple-app-id, --android-app or --clear it shows the client's app links. With any of them it \
                replaces them all: e.g. --apple-app-id ABCDE12345.com.example.app \
                --android-app com.example.app=AB:CD:…:EF (fingerprints of the signing certificates, comma-separated).
                """
        )
        @Option(help: "Client key.") var clientKey: String
        @Option(name: .customLong("apple-app-id"), help: "TEAMID.bundle.id of an iOS or macOS app (repeatable).") var appleAppIds: [String] = []
        @Option(name: .customLong("android-app"), help: "package=SHA-256 fingerprint[,fingerprint…] of an Android app (repeatable).")
        var androidApps: [String] = []
        @Flag(help: "Remove every app link of the client.") var clear = false
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func validate() throws {
            if clear && !(appleAppIds.isEmpty && androidApps.isEmpty) {
                throw ValidationError("--clear removes every app link: give it alone, or give the apps to keep instead")
            }
            _ = try Self.android(androidApps)
        }

        /// `package=FP,FP` into entries; a malformed value names itself.
        static func android(_ values: [String]) throws -> [PasskeyAppLinks.AndroidApp] {
            try values.map { value in
                let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw ValidationError("--android-app \(value): expected package=fingerprint[,fingerprint…]")
                }
                return PasskeyAppLinks.AndroidApp(packageName: parts[0], sha256CertFingerprints: parts[1].split(separator: ",").map(String.init))
            }
        }

        func run() async throws {
            let api = try await AdminAPI.connect(options), path = "clients/\(pathComponent(clientKey))/passkeys/app-links"
            let links: PasskeyAppLinks
            if clear || !appleAppIds.isEmpty || !androidApps.isEmpty {
                let wanted = PasskeyAppLinks(appleAppIds: appleAppIds, androidApps: try Self.android(androidApps))
                links = try await api.send(.PUT, path, body: wanted, as: PasskeyAppLinks.self)
            } else {
                links = try await api.get(path, as: PasskeyAppLinks.self)
            }
            if json { printJSON(links); return }
            if links.appleAppIds.isEmpty && links.androidApps.isEmpty { print("no app links"); return }
            for id in links.appleAppIds { print("apple    \(id)") }
            for app in links.androidApps { print("android  \(app.packageName)  \(app.sha256CertFingerprints.joined(separator: ","))") }
        }
    }
}
