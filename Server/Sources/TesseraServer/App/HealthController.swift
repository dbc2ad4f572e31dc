import Foundation
import Hummingbird
import SQLKit

/// `/healthz` (the process is up), `/readyz` (the database answers), and the OpenAPI contract.
struct HealthController<Context: TesseraContext> {
    let database: any Database

    struct Status: Encodable { var status: String }

    func addRoutes(to router: Router<Context>) {
        router.get("healthz") { _, _ in try Response.json(Status(status: "ok")) }
        router.get("readyz") { _, _ in
            do {
                try await database.withSQL { sql in try await sql.raw("SELECT 1").run() }
                return try Response.json(Status(status: "ready"))
            } catch {
                throw AppError(.storageUnavailable, .serviceUnavailable, "Database unavailable")
            }
        }
        router.get("openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.data))
            )
        }
    }
}

/// The OpenAPI 3.1 document shipped in the module's resources: the contract for every route.
public enum OpenAPIDocument {
    public static let data: Data = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
              let data = try? Data(contentsOf: url)
        else { fatalError("openapi.json missing from the TesseraServer resources") }
        return data
    }()
}
