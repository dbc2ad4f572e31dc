import ArgumentParser
import Foundation
import TesseraCore

/// `tessera admin passkey …`: users' passkeys.
struct PasskeyAdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey", abstract: "Passkeys of users.", subcommands: [List.self, Revoke.self]
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
                print("\(item.id)  \(item.name)  \(item.algorithm)  \(synced)  aaguid \(item.aaguid)\(flagged)")
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
}
