import ArgumentParser
import Foundation
import Logging
import TesseraCore
import TesseraNode
import TesseraServer

/// `tessera node`: a verifier node process.
struct NodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "node", abstract: "Run a verifier node (its own Ed25519 key and device registry).",
        subcommands: [Run.self, Identity.self], defaultSubcommand: Run.self
    )

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "run", abstract: "Serve (default).")
        @Option(help: "Directory holding the node's key and registry.") var dataDir = "./.tessera-node"
        @Option(help: "Address to listen on.") var host = "127.0.0.1"
        @Option(help: "Port to listen on.") var port = 8181
        @Option(help: "The server's node-control public key (`tessera admin node server-key`; or TESSERA_NODE_SERVER_KEY).")
        var serverKey: String?
        @Option(help: "PEM certificate (chain) to serve HTTPS with; needs --tls-key.") var tlsCertificate: String?
        @Option(help: "PEM private key of --tls-certificate.") var tlsKey: String?
        @Option(help: "PEM file of App Attest roots to trust instead of Apple's App Attestation Root CA (tests only).")
        var appAttestRoots: String?
        @Option(help: "Log level.") var logLevel = "info"
        @Option(help: "Log format: text, or json (one JSON object a line).") var logFormat = "text"
        @Flag(help: "Stop when standard input ends (an embedded node started by `tessera serve` dies with its server).")
        var stopOnStdinEof = false

        func run() async throws {
            MallocTuning.apply(environment: ProcessInfo.processInfo.environment)
            guard let key = serverKey ?? ProcessInfo.processInfo.environment["TESSERA_NODE_SERVER_KEY"] else {
                throw ValidationError("give --server-key (print it with `tessera admin node server-key`)")
            }
            guard let level = Logger.Level(rawValue: logLevel) else {
                throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard let format = LogFormat(rawValue: logFormat) else { throw ValidationError("--log-format must be text or json, not \(logFormat)") }
            if format == .json {
                LoggingSystem.bootstrap { label in JSONLogHandler.standardError(label: label, metadataProvider: nil) }
            }
            // Its own label: an embedded node's lines go to the server's standard error beside the server's.
            let logger = makeLogger(level: level, label: "tessera-node")
            // Nothing is created for a node that cannot listen.
            try await ListenAddressCheck.check(host: host, port: port)
            let node: NodeServer
            do {
                let tls = try TLSFiles.optional(
                    certificate: tlsCertificate, key: tlsKey, certificateName: "--tls-certificate", keyName: "--tls-key"
                )
                node = try await NodeServer.open(
                    configuration: .init(dataDirectory: dataDir, host: host, port: port, serverKey: key, tls: tls, appAttestRoots: appAttestRoots),
                    logger: logger
                )
            } catch let error as ConfigurationError {
                throw ValidationError(error.description)
            }
            print("node id:    \(node.nodeId)")
            print("public key: \(node.publicKey)")
            let scheme = tlsCertificate == nil ? "http" : "https"
            if port != 0 {
                print("register:   tessera admin node add --url \(scheme)://\(host):\(port) --public-key \(node.publicKey)")
            }
            fflush(nil)
            if stopOnStdinEof { NodeReadyLine.stopOnStandardInputEnd() }
            let (nodeId, publicKey) = (node.nodeId, node.publicKey)
            try await node.run { url in
                print(NodeReadyLine(nodeId: nodeId, publicKey: publicKey, url: url).text)
                fflush(nil)
            }
        }
    }

    struct Identity: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "identity", abstract: "Print the node's ID and public key (creating the key if needed).")
        @Option(help: "Directory holding the node's key and registry.") var dataDir = "./.tessera-node"

        func run() async throws {
            let identity = try NodeServer.identity(dataDirectory: dataDir)
            print("node id:    \(identity.nodeId)")
            print("public key: \(identity.publicKey)")
        }
    }
}

/// `tessera admin node …`
struct NodeAdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "node", abstract: "Manage verifier nodes.",
        subcommands: [Add.self, List.self, ServerKey.self, Disable.self, Enable.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Register a `tessera node`; every active device is sent to it.")
        @Option(help: "The node's URL, http(s)://host:port.") var url: String
        @Option(help: "The node's public key, as `tessera node` prints it.") var publicKey: String
        @Option(help: "A name.") var name: String?
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let api = try await AdminAPI.connect(options)
            let entry = try await api.send(.POST, "nodes", body: AddNodeRequest(url: url, publicKey: publicKey, name: name), as: NodeEntry.self)
            let serverKey = try await api.get("nodes", as: AdminNodeList.self).serverKey
            print("added node \(entry.nodeId) at \(entry.url)")
            print("the node must trust this server: tessera node --server-key \(serverKey)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List nodes.")
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let nodes = try await AdminAPI.connect(options).get("nodes", as: AdminNodeList.self).nodes
            if json { printJSON(nodes); return }
            for node in nodes {
                let pending = node.pendingDevices ?? 0
                print("\(node.nodeId)  \(node.enabled ? "enabled " : "disabled")  \(node.url)  \(node.name)  pending: \(pending)")
                if let error = node.lastError { print("    last error: \(error)") }
            }
        }
    }

    struct ServerKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "server-key", abstract: "Print the key every node must be given with --server-key (read from the storage; the server may be stopped).")
        @OptionGroup var options: ServerOptions
        func run() async throws { print(try await withDeploymentStorage(options) { $0.nodeControlPublicKey }) }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "disable", abstract: "Stop asking a node.")
        @Argument(help: "Node ID.") var nodeId: String
        @OptionGroup var options: AdminOptions
        func run() async throws {
            try await AdminAPI.connect(options).send(.POST, "nodes/\(pathComponent(nodeId))/disable")
            print("disabled \(nodeId)")
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "enable", abstract: "Ask a node again (every active device is sent to it).")
        @Argument(help: "Node ID.") var nodeId: String
        @OptionGroup var options: AdminOptions
        func run() async throws {
            try await AdminAPI.connect(options).send(.POST, "nodes/\(pathComponent(nodeId))/enable")
            print("enabled \(nodeId)")
        }
    }
}

/// `tessera admin keys rotate`
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "keys", abstract: "Result-token signing keys.", subcommands: [Rotate.self])

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Sign new result tokens with a new key; the previous key stays in the JWKS so its tokens still verify."
        )
        @OptionGroup var options: AdminOptions
        func run() async throws {
            let kid = try await AdminAPI.connect(options).send(.POST, "keys/rotate", as: RotatedKey.self).kid
            print("new signing key: \(kid) (running servers pick it up within a minute)")
        }
    }
}

/// `tessera admin totp reset`
struct TOTPAdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "totp", abstract: "TOTP lock-outs.", subcommands: [Reset.self])

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset", abstract: "Clear a user's failed TOTP verifications.")
        @Option(help: "Client key of the app.") var clientKey: String
        @Option(help: "User key.") var userKey: String
        @OptionGroup var options: AdminOptions
        func run() async throws {
            try await AdminAPI.connect(options).send(.POST, "totp/reset", body: TOTPResetRequest(clientKey: clientKey, userKey: userKey))
            print("reset \(userKey)")
        }
    }
}
