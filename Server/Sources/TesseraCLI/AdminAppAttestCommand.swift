import ArgumentParser
import Foundation
import TesseraCore
import TesseraServer

/// `tessera admin client app-attest KEY [--policy P] [--team-id T] [--bundle-id B] [--environment E] [--assert-sign-in B] [--json]`: a
/// client's App Attest settings (issue 41), over `GET`/`PUT /v1/admin/clients/{clientKey}/app-attest`.
struct ClientAppAttestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-attest",
        abstract: "Show or set a client's App Attest settings: the policy (off, reported, required) and the app (team ID, bundle ID, environment).",
        discussion: """
            Without a setting it shows the settings. A setting given changes only that setting: the others keep their \
            stored values (GET, then PUT). Team ID and bundle ID are required unless the policy is off. Audited as \
            admin.client.app_attest_set.
            """
    )
    @Argument(help: "Client key.") var clientKey: String
    @Option(help: "off, reported or required.") var policy: String?
    @Option(help: "The app's ten-character Apple Developer team ID.") var teamId: String?
    @Option(help: "The app's bundle identifier.") var bundleId: String?
    @Option(help: "The app's App Attest environment: development or production.") var environment: String?
    @Option(help: "true: each sign-in approval must carry an App Attest assertion; false: one is verified when sent.") var assertSignIn: Bool?
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var options: AdminOptions

    func validate() throws {
        if let policy, !AppAttestSettings.policies.contains(policy) {
            throw ValidationError("--policy must be off, reported or required, not \(policy)")
        }
        if let environment, !AppAttestSettings.environments.contains(environment) {
            throw ValidationError("--environment must be development or production, not \(environment)")
        }
        if teamId?.isEmpty == true { throw ValidationError("--team-id must not be empty") }
        if bundleId?.isEmpty == true { throw ValidationError("--bundle-id must not be empty") }
    }

    func run() async throws {
        let api = try await AdminAPI.connect(options), path = "clients/\(pathComponent(clientKey))/app-attest"
        var settings = try await api.get(path, as: AppAttestSettings.self)
        if policy != nil || teamId != nil || bundleId != nil || environment != nil || assertSignIn != nil {
            if let policy { settings.policy = policy }
            if let teamId { settings.teamId = teamId }
            if let bundleId { settings.bundleId = bundleId }
            if let environment { settings.environment = environment }
            if let assertSignIn { settings.assertSignIn = assertSignIn }
            settings = try await api.send(.PUT, path, body: settings, as: AppAttestSettings.self)
        }
        if json { printJSON(settings); return }
        print("policy:       \(settings.policy)")
        print("team id:      \(settings.teamId.isEmpty ? "(none)" : settings.teamId)")
        print("bundle id:    \(settings.bundleId.isEmpty ? "(none)" : settings.bundleId)")
        print("environment:  \(settings.environment)")
        print("assert sign-in: \(settings.assertSignIn ? "yes (each approval carries an assertion)" : "no")")
    }
}

/// A device's App Attest state for people: `attested (production, counter 5) 2026-…` or `not attested`.
func appAttestState(_ device: AdminDevice) -> String {
    let state = device.appAttest
    guard state.attested else { return "not attested" }
    let environment = state.environment ?? "?", counter = state.counter.map { ", counter \($0)" } ?? ""
    let since = state.attestedAt.map { " " + isoTime(millis: $0) } ?? ""
    return "attested (\(environment)\(counter))\(since)"
}
