import ArgumentParser
import Foundation
import TesseraCore
import TesseraServer

struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Administer clients, users, nodes, keys and tokens through the running server's admin API (token reset and the server key work on its storage).",
        subcommands: [
            ClientCommand.self, UserAdminCommand.self, DeviceAdminCommand.self, NodeAdminCommand.self, KeysCommand.self, TOTPAdminCommand.self,
            TokenCommand.self, SessionAdminCommand.self, AuthenticatorAdminCommand.self, PasskeyAdminCommand.self, AuditAdminCommand.self, WebhookAdminCommand.self,
        ]
    )
}

struct ClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client", abstract: "Manage clients (apps).",
        subcommands: [Create.self, List.self, Disable.self, Enable.self, RotateSecret.self, ClientPolicyCommand.self, ClientPushCommand.self, ClientOIDCCommand.self, ClientCIBACommand.self, ClientCIBAChannelCommand.self, ClientKeysCommand.self, ClientAppAttestCommand.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a client; prints its key and secret (the secret only now).")
        @Option(help: "Display name.") var name: String
        @Option(name: .customLong("bundle-id"), help: "Allowed bundle identifier (repeat for more).") var bundleIds: [String]
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let created = try await AdminAPI.connect(options).send(
                .POST, "clients", body: CreateClientRequest(name: name, bundleIds: bundleIds), as: ClientWithSecret.self
            )
            if json {
                printJSON(created)
            } else {
                print("client key:    \(created.client.clientKey)")
                print("client secret: \(created.clientSecret)   (shown once)")
                print("bundle ids:    \(created.client.bundleIds.joined(separator: ", "))")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List clients.")
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let clients = try await AdminAPI.connect(options).get("clients", as: AdminClientList.self).clients
            if json { printJSON(clients); return }
            for client in clients {
                print("\(client.clientKey)  \(client.enabled ? "enabled " : "disabled")  \(client.name)  [\(client.bundleIds.joined(separator: ", "))]")
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "disable", abstract: "Disable a client: its app calls are refused.")
        @Argument(help: "Client key.") var clientKey: String
        @OptionGroup var options: AdminOptions
        func run() async throws {
            try await AdminAPI.connect(options).send(.POST, "clients/\(pathComponent(clientKey))/disable")
            print("disabled \(clientKey)")
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "enable", abstract: "Enable a client again.")
        @Argument(help: "Client key.") var clientKey: String
        @OptionGroup var options: AdminOptions
        func run() async throws {
            try await AdminAPI.connect(options).send(.POST, "clients/\(pathComponent(clientKey))/enable")
            print("enabled \(clientKey)")
        }
    }

    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rotate-secret", abstract: "Replace a client's secret; the old one stops working.")
        @Argument(help: "Client key.") var clientKey: String
        @OptionGroup var options: AdminOptions
        func run() async throws {
            let rotated = try await AdminAPI.connect(options).send(
                .POST, "clients/\(pathComponent(clientKey))/rotate-secret", as: ClientWithSecret.self
            )
            print("client secret: \(rotated.clientSecret)   (shown once)")
        }
    }
}

struct UserAdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "user", abstract: "Users of a client.", subcommands: [List.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List a client's users and their devices.")
        @Option(help: "Client key.") var clientKey: String
        @Option(help: "Users per page.") var limit = 50
        @Option(help: "Start after this user key (the previous page's nextCursor).") var after: String?
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            var query = ["clientKey": clientKey, "limit": "\(limit)"]
            if let after { query["after"] = after }
            let page = try await AdminAPI.connect(options).get("users", query: query, as: AdminUserPage.self)
            if json { printJSON(page); return }
            for user in page.users {
                print("\(user.userKey)  \(user.name)  \(user.email)  \(user.phone)  \(user.localAuthType)")
                for device in user.devices { print("    \(device.deviceId)  \(device.status)  \(device.os) \(device.appVersion)  push \(pushState(device))  app attest \(appAttestState(device))") }
            }
            if let next = page.nextCursor { print("more: --after \(next)") }
        }
    }
}

struct DeviceAdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "device", abstract: "Devices.", subcommands: [Revoke.self])

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke a device: its calls are refused, its tokens introspect inactive, every node is told."
        )
        @Argument(help: "Device ID.") var deviceId: String
        @OptionGroup var options: AdminOptions
        func run() async throws {
            try await AdminAPI.connect(options).send(.POST, "devices/\(pathComponent(deviceId))/revoke")
            print("revoked \(deviceId)")
        }
    }
}

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Admin token.", subcommands: [Reset.self])

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: "Generate a new admin token (the old one stops working); works on the storage, also while the server is stopped."
        )
        @OptionGroup var options: ServerOptions
        func run() async throws {
            let token = try await withDeploymentStorage(options) { try await $0.resetAdminToken() }
            print("admin token: \(token)   (shown once)")
        }
    }
}

/// A device's push state for people: `registered (apns) 2026-…`, `cleared by the provider 2026-…`, `none`.
func pushState(_ device: AdminDevice) -> String {
    let provider = device.pushProvider.map { " (\($0))" } ?? ""
    let since = device.pushChangedAt.map { " " + isoTime(millis: $0) } ?? ""
    switch device.push {
    case "registered": return "registered" + provider + since
    case "cleared": return "cleared by the provider" + provider + since
    default: return "none"
    }
}

/// `value` escaped for one path segment of an admin API URL.
func pathComponent(_ value: String) -> String {
    value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? value
}

/// Prints `value` as pretty JSON (sorted keys): every listing's `--json`. Times are ISO 8601 (UTC):
/// `Date`s, and the API's numeric times, the values of keys named `at` or ending in `At`.
func printJSON(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(isoTime(date))
    }
    guard let data = try? encoder.encode(value) else { return }
    guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
          let rewritten = try? JSONSerialization.data(
              withJSONObject: JSONTimes.rewrite(object), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
          )
    else { print(String(decoding: data, as: UTF8.self)); return }
    print(String(decoding: rewritten, as: UTF8.self))
}
