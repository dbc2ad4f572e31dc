import ArgumentParser
import Foundation
import TesseraCore

/// `tessera admin client ciba KEY [--mode poll|ping|push] [--notification-endpoint URL]`: a client's OpenID CIBA delivery.
struct ClientCIBACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ciba",
        abstract: "Show or set how a client receives its OpenID CIBA outcomes: poll (the default), ping or push to its notification endpoint.",
        discussion: "Without --mode it shows the settings. --mode ping and --mode push need --notification-endpoint (https, or plain http to a loopback host)."
    )
    @Argument(help: "Client key.") var clientKey: String
    @Option(help: "poll, ping or push.") var mode: String?
    @Option(help: "The client's backchannel_client_notification_endpoint (for ping and push).") var notificationEndpoint: String?
    @Flag(help: "Each request must carry the user's user_code (their Tessera password); with --mode.") var userCodeRequired = false
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var options: AdminOptions

    func validate() throws {
        if let mode, !["poll", "ping", "push"].contains(mode) { throw ValidationError("--mode must be poll, ping or push, not \(mode)") }
        if mode == nil, notificationEndpoint != nil { throw ValidationError("--notification-endpoint goes with --mode ping (or poll)") }
        if mode == nil, userCodeRequired { throw ValidationError("--user-code-required goes with --mode") }
        if mode == "ping" || mode == "push", notificationEndpoint == nil { throw ValidationError("--mode \(mode ?? "") needs --notification-endpoint") }
    }

    func run() async throws {
        let api = try await AdminAPI.connect(options), path = "clients/\(pathComponent(clientKey))/ciba"
        let settings: CIBAClientSettings
        if let mode {
            settings = try await api.send(
                .PUT, path, body: CIBAClientSettings(deliveryMode: mode, notificationEndpoint: notificationEndpoint, userCodeRequired: userCodeRequired),
                as: CIBAClientSettings.self
            )
        } else {
            settings = try await api.get(path, as: CIBAClientSettings.self)
        }
        if json { printJSON(settings); return }
        print("delivery:      \(settings.deliveryMode)")
        print("notification:  \(settings.notificationEndpoint ?? "(none)")")
        print("user code:     \(settings.userCodeRequired ? "required" : "not required")")
    }
}

/// `tessera admin client ciba-channel KEY [--issuer URL --jwks-file FILE [--callback-url URL]] [--remove]`: the client as
/// the CIBA authentication channel of another identity server (Keycloak's HTTP authentication channel).
struct ClientCIBAChannelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ciba-channel",
        abstract: "Show, set or remove the identity server (Keycloak) whose CIBA authentications this client's users approve on their phones.",
        discussion: """
            The server POSTs to /v1/ciba/channel/KEY with a bearer JWT it signs; the result goes to its callback URL. --issuer is \
            the realm's URL (https://kc.example.com/realms/demo), --jwks-file the realm's keys (save \
            <issuer>/protocol/openid-connect/certs). --callback-url defaults to Keycloak's <issuer>/protocol/openid-connect/ext/ciba/auth/callback.
            """
    )
    @Argument(help: "Client key.") var clientKey: String
    @Option(help: "The other server's issuer (the JWT's iss and aud).") var issuer: String?
    @Option(help: "A file with the other server's signing keys (a JWK Set).") var jwksFile: String?
    @Option(help: "Where results go (default: Keycloak's callback under the issuer).") var callbackUrl: String?
    @Flag(help: "Stop serving as the channel: requests are refused from then on.") var remove = false
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var options: AdminOptions

    func validate() throws {
        if remove, issuer != nil || jwksFile != nil || callbackUrl != nil { throw ValidationError("--remove takes no other setting") }
        if (issuer == nil) != (jwksFile == nil) { throw ValidationError("--issuer and --jwks-file go together") }
        if callbackUrl != nil, issuer == nil { throw ValidationError("--callback-url goes with --issuer and --jwks-file") }
    }

    func run() async throws {
        let api = try await AdminAPI.connect(options), path = "clients/\(pathComponent(clientKey))/ciba/channel"
        if remove {
            try await api.send(.DELETE, path)
            print("removed: \(clientKey) is no authentication channel")
            return
        }
        let settings: CIBAChannelSettings
        if let issuer, let jwksFile {
            guard let data = FileManager.default.contents(atPath: jwksFile) else { throw ValidationError("cannot read --jwks-file \(jwksFile)") }
            let body = CIBAChannelSettings(issuer: issuer, callbackUrl: callbackUrl, jwks: String(decoding: data, as: UTF8.self))
            settings = try await api.send(.PUT, path, body: body, as: CIBAChannelSettings.self)
        } else {
            settings = try await api.get(path, as: CIBAChannelSettings.self)
        }
        if json { printJSON(settings); return }
        print("issuer:    \(settings.issuer)")
        print("callback:  \(settings.callbackUrl ?? "(none)")")
        print("channel:   POST /v1/ciba/channel/\(clientKey)")
    }
}
