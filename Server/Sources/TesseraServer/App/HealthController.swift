import Foundation
import Hummingbird

/// `/healthz` (the process is up), `/readyz` (the database answers), the OpenAPI contract, and the
/// favicon every page (the console, the hosted sign-in page) makes the browser ask for.
struct HealthController<Context: TesseraContext> {
    let database: any Database

    struct Status: Encodable { var status: String }

    func addRoutes(to router: Router<Context>) {
        router.get("healthz") { _, _ in try Response.json(Status(status: "ok")) }
        router.get("readyz") { _, _ in
            do {
                try await database.ping()
                return try Response.json(Status(status: "ready"))
            } catch {
                throw AppError.storageUnavailable()
            }
        }
        router.get("favicon.ico") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "image/x-icon", .cacheControl: "public, max-age=86400"],
                body: .init(byteBuffer: ByteBuffer(bytes: Favicon.data))
            )
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

/// Tessera's icon: a white T on the console's blue, 16×16 (an ICO holding one PNG, 133 bytes).
enum Favicon {
    static let data = Data(base64Encoded: "AAABAAEAEBAAAAEAIABvAAAAFgAAAIlQTkcNChoKAAAADUlIRFIAAAAQAAAAEAgGAAAAH/P/YQAAADZJREFUeNpjYIAC/ejL/0nBDMiAVM0ohpCrGW4I1Q0gBGhvADbDyA6DUQMGgwE0zw8U5UiYPgCfWnCPEbiZigAAAABJRU5ErkJggg==")!
}
