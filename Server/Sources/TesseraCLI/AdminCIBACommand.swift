import ArgumentParser
import Foundation
import TesseraCore

/// `tessera admin client ciba KEY [--mode poll|ping] [--notification-endpoint URL]`: a client's OpenID CIBA delivery.
struct ClientCIBACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ciba",
        abstract: "Show or set how a client receives its OpenID CIBA outcomes: poll (the default), or ping to its notification endpoint.",
        discussion: "Without --mode it shows the settings. --mode ping needs --notification-endpoint (https, or plain http to a loopback host)."
    )
    @Argument(help: "Client key.") var clientKey: String
    @Option(help: "poll or ping.") var mode: String?
    @Option(help: "The client's backchannel_client_notification_endpoint (for ping).") var notificationEndpoint: String?
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var options: AdminOptions

    func validate() throws {
        if let mode, !["poll", "ping"].contains(mode) { throw ValidationError("--mode must be poll or ping, not \(mode)") }
        if mode == nil, notificationEndpoint != nil { throw ValidationError("--notification-endpoint goes with --mode ping (or poll)") }
        if mode == "ping", notificationEndpoint == nil { throw ValidationError("--mode ping needs --notification-endpoint") }
    }

    func run() async throws {
        let api = try await AdminAPI.connect(options), path = "clients/\(pathComponent(clientKey))/ciba"
        let settings: CIBAClientSettings
        if let mode {
            settings = try await api.send(
                .PUT, path, body: CIBAClientSettings(deliveryMode: mode, notificationEndpoint: notificationEndpoint), as: CIBAClientSettings.self
            )
        } else {
            settings = try await api.get(path, as: CIBAClientSettings.self)
        }
        if json { printJSON(settings); return }
        print("delivery:      \(settings.deliveryMode)")
        print("notification:  \(settings.notificationEndpoint ?? "(none)")")
    }
}
