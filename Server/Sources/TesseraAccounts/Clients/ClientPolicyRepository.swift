import Foundation
import SQLKit
import TesseraCore

/// Each client's policy (SPEC capability 7), stored as JSON. A client without one gets the defaults,
/// with `devicesPerUser` from the server's `devices.maxPerUser`.
package struct ClientPolicyRepository: Sendable {
    package let database: any Database
    package let clock: WallClock
    package var defaultDevicesPerUser = 1

    package init(database: any Database, clock: WallClock, defaultDevicesPerUser: Int = 1) {
        self.database = database
        self.clock = clock
        self.defaultDevicesPerUser = defaultDevicesPerUser
    }

    package var defaultPolicy: ClientPolicy { ClientPolicy(devicesPerUser: defaultDevicesPerUser) }

    package func policy(clientId: String, in sql: any SQLDatabase) async throws -> ClientPolicy {
        guard let text = try await sql.raw("SELECT policy FROM client_policies WHERE client_id = \(bind: clientId)").first()?
            .decode(column: "policy", as: String.self)
        else { return defaultPolicy }
        return try JSONDecoder().decode(ClientPolicy.self, from: Data(text.utf8))
    }

    package func policy(clientId: String) async throws -> ClientPolicy {
        try await database.read { try await self.policy(clientId: clientId, in: $0) }
    }

    /// Replaces the policy (checked first: 1005 with the reason when it is unusable).
    package func set(_ policy: ClientPolicy, clientId: String) async throws {
        if let problem = policy.problem { throw AppError.invalidField("policy", problem) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(policy), as: UTF8.self)
        let now = clock.now()
        try await database.withSQL { sql in
            try await sql.raw(
                """
                INSERT INTO client_policies (client_id, policy, updated_at) VALUES (\(bind: clientId), \(bind: text), \(bind: now))
                ON CONFLICT (client_id) DO UPDATE SET policy = \(bind: text), updated_at = \(bind: now)
                """
            ).run()
        }
    }
}
