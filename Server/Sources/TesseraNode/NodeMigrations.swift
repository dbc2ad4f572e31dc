import TesseraHTTPKit

/// The node's registry schema (`registry.sqlite`), applied by ``NodeService/open(directory:inMemory:clock:logger:)``.
enum NodeMigrations {
    static let all: [Migration] = [
        // request_nonces: the server's signed calls are replay-checked here (same version as on the server, for old registries).
        Migration(version: 2, name: "request-nonces", statements: RequestNonces.tableStatements),
        Migration(version: 100, name: "node-registry", statements: [
            """
            CREATE TABLE node_devices (
                device_id TEXT PRIMARY KEY,
                client_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                device_key TEXT NOT NULL,
                uv_key TEXT NOT NULL,
                status TEXT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
        ]),
    ]
}
