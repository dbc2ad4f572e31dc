import ArgumentParser
import Foundation
import TesseraServer

/// `tessera admin client oidc show|set`: a client's OpenID Connect settings (its redirect URIs).
struct ClientOIDCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oidc", abstract: "A client's OpenID Connect settings: the redirect URIs of \"Sign in with Tessera\".",
        subcommands: [Show.self, SetRedirects.self, Logo.self]
    )

    static func printSettings(_ settings: OIDCClientSettings, clientKey: String, json: Bool) {
        if json { printJSON(settings); return }
        print("client_id:     \(clientKey)  (the client secret is its backend secret: tessera admin client rotate-secret)")
        print("redirect URIs: \(settings.redirectUris.isEmpty ? "(none: sign-in refused)" : settings.redirectUris.joined(separator: " "))")
        print("number matching: \(settings.numberMatching ? "on (the sign-in page shows two digits to pick on the phone)" : "off")")
        print("ID tokens:     \(settings.idTokenSignedResponseAlg)")
        let logoutURIs = settings.postLogoutRedirectUris
        print("after sign-out: \(logoutURIs.isEmpty ? "(none: the sign-out page stays at Tessera)" : logoutURIs.joined(separator: " "))")
        print("back-channel logout: \(settings.backchannelLogoutUri ?? "(none)")")
        print("passkeys:      \(settings.offerPasskeys ? "offered after a phone-approved sign-in" : "not offered after a sign-in")")
        print("page:          \(settings.displayName.map { "\"\($0)\"" } ?? "(the client's name)"), accent \(settings.accentColor ?? "(Tessera blue)")")
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a client's OpenID Connect settings.")
        @Argument(help: "Client key.") var clientKey: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let settings = try await AdminAPI.connect(options).get("clients/\(pathComponent(clientKey))/oidc", as: OIDCClientSettings.self)
            ClientOIDCCommand.printSettings(settings, clientKey: clientKey, json: json)
        }
    }

    struct SetRedirects: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Replace a client's OpenID Connect settings: redirect URIs (matched exactly), number matching, ID token algorithm, logout URIs, page, passkey offer."
        )
        @Argument(help: "Client key.") var clientKey: String
        @Option(name: .customLong("redirect-uri"), help: "A redirect URI (repeat for several; none removes them all).")
        var redirectUris: [String] = []
        @Flag(help: "Number matching: the sign-in page shows two digits the user picks on the phone (off unless given).")
        var numberMatching = false
        @Option(name: .customLong("id-token-alg"), help: "How the client's ID tokens are signed: ES256 (the default) or RS256.")
        var idTokenAlg = "ES256"
        @Option(
            name: .customLong("post-logout-redirect-uri"),
            help: "Where sign-out (/oauth2/logout) may send the browser back to, matched exactly (repeat for several)."
        )
        var postLogoutRedirectUris: [String] = []
        @Option(
            name: .customLong("backchannel-logout-uri"),
            help: "Where a signed logout token is POSTed when one of the client's sessions ends (OpenID Back-Channel Logout 1.0)."
        )
        var backchannelLogoutUri: String?
        @Option(name: .customLong("display-name"), help: "The name the sign-in page shows (\"Sign in to …\"); the client's name unless given.")
        var displayName: String?
        @Option(
            name: .customLong("accent-color"),
            help: "The sign-in page's accent colour as #rrggbb, with at least 4.5:1 contrast against white (WCAG AA); Tessera blue unless given."
        )
        var accentColor: String?
        @Flag(help: "Offer to add a passkey on the sign-in page after a phone-approved sign-in (off unless given).")
        var offerPasskeys = false
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func validate() throws {
            guard ["ES256", "RS256"].contains(idTokenAlg) else { throw ValidationError("--id-token-alg must be ES256 or RS256") }
        }

        func run() async throws {
            let settings = try await AdminAPI.connect(options).send(
                .PUT, "clients/\(pathComponent(clientKey))/oidc",
                body: OIDCClientSettings(
                    redirectUris: redirectUris, numberMatching: numberMatching, idTokenSignedResponseAlg: idTokenAlg,
                    postLogoutRedirectUris: postLogoutRedirectUris, backchannelLogoutUri: backchannelLogoutUri, displayName: displayName,
                    accentColor: accentColor, offerPasskeys: offerPasskeys
                ),
                as: OIDCClientSettings.self
            )
            ClientOIDCCommand.printSettings(settings, clientKey: clientKey, json: json)
        }
    }

    struct Logo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "logo", abstract: "Set or remove the logo the sign-in page shows for a client (PNG, JPEG or WebP, at most 64 KiB)."
        )
        @Argument(help: "Client key.") var clientKey: String
        @Argument(help: "The image file (.png, .jpg, .jpeg or .webp).") var file: String?
        @Flag(help: "Remove the client's logo.") var remove = false
        @OptionGroup var options: AdminOptions

        static let types = ["png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp"]

        func validate() throws {
            guard (file == nil) == remove else { throw ValidationError("give either an image file or --remove") }
            if let file, Self.types[URL(fileURLWithPath: file).pathExtension.lowercased()] == nil {
                throw ValidationError("the logo file must end in .png, .jpg, .jpeg or .webp: \(file)")
            }
        }

        func run() async throws {
            let api = try await AdminAPI.connect(options)
            let path = "clients/\(pathComponent(clientKey))/oidc/logo"
            guard let file else {
                _ = try await api.call(.DELETE, path)
                print("logo removed")
                return
            }
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch { throw CLIFailure.local("cannot read \(file): \(error.localizedDescription)") }
            let type = Self.types[URL(fileURLWithPath: file).pathExtension.lowercased()] ?? "application/octet-stream"
            _ = try await api.call(.PUT, path, body: data, contentType: type)
            print("logo set (\(type), \(data.count) bytes)")
        }
    }
}
