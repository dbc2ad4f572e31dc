import ArgumentParser
import Foundation
import TesseraCore

extension PasskeyAdminCommand {
    /// `tessera admin passkey attestation`: which authenticators may register a client's passkeys.
    struct Attestation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attestation",
            abstract: "Show or replace which authenticators may register passkeys at a client (attestation, trust roots, allowed models).",
            discussion: """
                Without options it shows the client's settings. With any of them it replaces them all: \\
                --attestation required --trust-root vendor-ca.pem --allow-aaguid fbfc3007-154e-4ecc-8c0b-6e020557d7bd. \\
                With attestation required a new passkey needs a certificate chain to one of the trust roots (or to its \\
                model's roots in the server's FIDO metadata BLOB, passkeys.metadataBlob); --clear goes back to any authenticator.
                """
        )
        @Option(help: "Client key.") var clientKey: String
        @Option(help: "none (any authenticator) or required (a chain to a trust root).") var attestation: String?
        @Option(name: .customLong("trust-root"), help: "A PEM file with one root certificate (repeatable).") var trustRoots: [String] = []
        @Option(name: .customLong("allow-aaguid"), help: "An authenticator model allowed, by AAGUID (repeatable); none given: any.")
        var allowedAAGUIDs: [String] = []
        @Flag(help: "Back to the defaults: any authenticator.") var clear = false
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func validate() throws {
            if clear && (attestation != nil || !trustRoots.isEmpty || !allowedAAGUIDs.isEmpty) {
                throw ValidationError("--clear goes back to the defaults: give it alone")
            }
            if let attestation, !["none", "required"].contains(attestation) {
                throw ValidationError("--attestation must be none or required, not \(attestation)")
            }
        }

        func run() async throws {
            let api = try await AdminAPI.connect(options), path = "clients/\(pathComponent(clientKey))/passkeys/attestation"
            let settings: PasskeyAttestationSettings
            if clear || attestation != nil || !trustRoots.isEmpty || !allowedAAGUIDs.isEmpty {
                let roots = try trustRoots.map { file in
                    guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                        throw ValidationError("--trust-root \(file): cannot read the file")
                    }
                    return text
                }
                let wanted = PasskeyAttestationSettings(attestation: attestation ?? "none", trustRoots: roots, allowedAAGUIDs: allowedAAGUIDs)
                settings = try await api.send(.PUT, path, body: wanted, as: PasskeyAttestationSettings.self)
            } else {
                settings = try await api.get(path, as: PasskeyAttestationSettings.self)
            }
            if json { printJSON(settings); return }
            print("attestation  \(settings.attestation)")
            print("trust roots  \(settings.trustRoots.count)")
            print("models       \(settings.allowedAAGUIDs.isEmpty ? "any" : settings.allowedAAGUIDs.joined(separator: ", "))")
        }
    }
}
