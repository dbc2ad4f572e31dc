import ArgumentParser
import Foundation
import TesseraCore

// TesseraCore does not depend on ArgumentParser, so this conformance can only ever be the CLI's.
extension APNsEnvironment: @retroactive ExpressibleByArgument {}

/// `tessera admin client push …`: a client's APNs, FCM or UnifiedPush settings, through the admin API. The key
/// files are read here and sent once; no command prints a private key.
struct ClientPushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "A client's push settings (APNs, FCM or UnifiedPush): wake its users' devices when a relying party asks.",
        subcommands: [SetAPNs.self, SetFCM.self, SetUnifiedPush.self, Show.self, Remove.self]
    )

    static func path(_ clientKey: String) -> String { "clients/\(pathComponent(clientKey))/push" }

    static func read(_ file: String, _ what: String) throws -> String {
        do { return try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw ValidationError("cannot read \(what) \(file): \(error.localizedDescription)")
        }
    }

    static func show(_ view: PushSettingsView, json: Bool) {
        if json { printJSON(view); return }
        guard let provider = view.provider else {
            print("no push settings: the client's devices poll for requests")
            return
        }
        print("provider:     \(provider.rawValue)")
        for (label, value) in [
            ("team ID", view.teamId), ("key ID", view.keyId), ("topic", view.topic), ("environment", view.environment?.rawValue),
            ("project ID", view.projectId), ("client email", view.clientEmail), ("base URL", view.baseURL), ("token URL", view.tokenURL),
        ] {
            if let value { print("\((label + ":").padding(toLength: 14, withPad: " ", startingAt: 0))\(value)") }
        }
        for prefix in view.allowedEndpoints ?? [] { print("allowed:      \(prefix)") }
        print("key:          \(view.hasKey ? "stored (sealed, never shown)" : "none")")
    }

    struct SetAPNs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-apns", abstract: "Use APNs with token authentication (a .p8 key).")
        @Argument(help: "Client key.") var clientKey: String
        @Option(help: "Apple developer team ID.") var teamId: String
        @Option(help: "The .p8 key's ID.") var keyId: String
        @Option(help: "The .p8 key file (PEM).") var keyFile: String
        @Option(help: "The app's bundle ID (apns-topic).") var topic: String
        @Option(help: "production or sandbox.") var environment: APNsEnvironment = .production
        @Option(help: "Another host than Apple's (https://host:port).") var baseUrl: String?
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let update = PushSettingsUpdate(apns: APNsSettingsUpdate(
                teamId: teamId, keyId: keyId, privateKey: try ClientPushCommand.read(keyFile, "the .p8 key"), topic: topic,
                environment: environment, baseURL: baseUrl
            ))
            let view = try await AdminAPI.connect(options).send(.PUT, ClientPushCommand.path(clientKey), body: update, as: PushSettingsView.self)
            ClientPushCommand.show(view, json: json)
        }
    }

    struct SetFCM: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-fcm", abstract: "Use FCM HTTP v1 with a service account.")
        @Argument(help: "Client key.") var clientKey: String
        @Option(help: "Firebase project ID.") var projectId: String
        @Option(help: "The service-account JSON file.") var serviceAccount: String
        @Option(help: "Another FCM host (https://host:port).") var baseUrl: String?
        @Option(help: "Another OAuth 2.0 token URL than the service account's token_uri.") var tokenUrl: String?
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let update = PushSettingsUpdate(fcm: FCMSettingsUpdate(
                projectId: projectId, serviceAccount: try ClientPushCommand.read(serviceAccount, "the service account"), baseURL: baseUrl,
                tokenURL: tokenUrl
            ))
            let view = try await AdminAPI.connect(options).send(.PUT, ClientPushCommand.path(clientKey), body: update, as: PushSettingsView.self)
            ClientPushCommand.show(view, json: json)
        }
    }

    struct SetUnifiedPush: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-unifiedpush", abstract: "Use UnifiedPush: devices give endpoint URLs on the push servers allowed here."
        )
        @Argument(help: "Client key.") var clientKey: String
        @Option(name: .customLong("allow"), help: "An allowed endpoint URL prefix (https://ntfy.example.com/, or http://127.0.0.1: for any port); repeat for more.")
        var allowedEndpoints: [String] = []
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            guard !allowedEndpoints.isEmpty else { throw ValidationError("give at least one --allow prefix") }
            let update = PushSettingsUpdate(unifiedpush: UnifiedPushSettingsUpdate(allowedEndpoints: allowedEndpoints))
            let view = try await AdminAPI.connect(options).send(.PUT, ClientPushCommand.path(clientKey), body: update, as: PushSettingsView.self)
            ClientPushCommand.show(view, json: json)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a client's push settings (never the key).")
        @Argument(help: "Client key.") var clientKey: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            ClientPushCommand.show(try await AdminAPI.connect(options).get(ClientPushCommand.path(clientKey), as: PushSettingsView.self), json: json)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a client's push settings (its devices poll).")
        @Argument(help: "Client key.") var clientKey: String
        @OptionGroup var options: AdminOptions

        func run() async throws {
            _ = try await AdminAPI.connect(options).send(.PUT, ClientPushCommand.path(clientKey), body: PushSettingsUpdate.off, as: PushSettingsView.self)
            print("push settings removed")
        }
    }
}
