import ArgumentParser
import Foundation
import TesseraCore

/// `tessera admin client keys KEY [--jwks-file FILE | --remove]`: the client's own public keys, for `private_key_jwt`
/// at the token and backchannel endpoints and for CIBA `login_hint_token`s.
struct ClientKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Show, set or remove a client's own public keys (private_key_jwt, CIBA login_hint_token).",
        discussion: "--jwks-file is a JWK Set of the client's public signing keys, each with a kid (its private keys stay with the client)."
    )
    @Argument(help: "Client key.") var clientKey: String
    @Option(help: "A file with the client's public keys (a JWK Set).") var jwksFile: String?
    @Flag(help: "Remove the keys: the client's assertions and login hint tokens are refused from then on.") var remove = false
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var options: AdminOptions

    func validate() throws {
        if remove, jwksFile != nil { throw ValidationError("--remove and --jwks-file do not go together") }
    }

    func run() async throws {
        let api = try await AdminAPI.connect(options), path = "clients/\(pathComponent(clientKey))/keys"
        if remove {
            try await api.send(.DELETE, path)
            print("removed: \(clientKey) has no keys")
            return
        }
        let settings: ClientKeySettings
        if let jwksFile {
            guard let data = FileManager.default.contents(atPath: jwksFile) else { throw ValidationError("cannot read --jwks-file \(jwksFile)") }
            settings = try await api.send(.PUT, path, body: ClientKeySettings(jwks: String(decoding: data, as: UTF8.self)), as: ClientKeySettings.self)
        } else {
            settings = try await api.get(path, as: ClientKeySettings.self)
        }
        if json { printJSON(settings); return }
        let keys = (try? JSONSerialization.jsonObject(with: Data(settings.jwks.utf8)) as? [String: Any])?["keys"] as? [[String: Any]] ?? []
        for key in keys {
            print("kid: \(key["kid"] as? String ?? "?")  kty: \(key["kty"] as? String ?? "?")  alg: \(key["alg"] as? String ?? "-")")
        }
    }
}
