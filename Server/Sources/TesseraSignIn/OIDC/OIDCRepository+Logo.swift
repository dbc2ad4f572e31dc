import Foundation
import SQLKit

extension SQLOIDCRepository {
    package func setLogo(_ logo: ClientLogo?, clientId: String, at time: Int64) async throws -> Bool {
        let data = logo.map { $0.data.base64EncodedString() }
        return try await database.withSQL { sql in
            try await sql.raw(
                """
                UPDATE oidc_clients SET logo_type = \(bind: logo?.contentType), logo_data = \(bind: data), logo_digest = \(bind: logo?.digest),
                    updated_at = \(bind: time)
                WHERE client_id = \(bind: clientId) RETURNING client_id
                """
            ).first() != nil
        }
    }

    package func logo(clientId: String) async throws -> ClientLogo? {
        try await database.read { sql in
            guard let row = try await sql.raw(
                "SELECT logo_type, logo_data FROM oidc_clients WHERE client_id = \(bind: clientId) AND logo_data IS NOT NULL"
            ).first(), let data = Data(base64Encoded: try row.decode(column: "logo_data", as: String.self)) else { return nil }
            return try ClientLogo(data, contentType: try row.decode(column: "logo_type", as: String.self))
        }
    }
}
