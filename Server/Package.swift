// swift-tools-version:6.1
import PackageDescription

// The server (`TesseraServer`), the `tessera` command and their tests. The SDK and the wire types
// are the package one level up (`Tessera`, `TesseraCore`), which apps depend on alone.
// What each of the server's test targets (one per server target) depends on.
let serverTestDependencies: [Target.Dependency] = [
    "TesseraServer", "TesseraServerTestSupport", "TesseraTestSupport", "TesseraNode", "TesseraWebAuthn",
    .product(name: "Tessera", package: "Tessera"),
    .product(name: "X509", package: "swift-certificates"),
    .product(name: "TesseraAsyncHTTPClient", package: "TesseraTransports"),
    .product(name: "HummingbirdTesting", package: "hummingbird"),
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
]

let package = Package(
    name: "TesseraServer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TesseraServer", targets: ["TesseraServer"]),
        .executable(name: "tessera", targets: ["TesseraCLI"]),
        // The benchmarks' load generators and fixtures (bench/*.sh): never part of the server or of `tessera`.
        .executable(name: "tessera-bench", targets: ["TesseraBench"]),
    ],
    dependencies: [
        .package(name: "Tessera", path: ".."),
        .package(name: "TesseraTransports", path: "../Transports"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: [.defaults, "CommandLineArguments"]),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.10.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    ],
    targets: [
        // What the server and the verifier node both need to serve HTTP and keep a small SQLite
        // store: problems, JSON bodies, RFC 9421 request verification, migrations, the TLS server
        // builder. No PostgreSQL, no SMTP.
        .target(
            name: "TesseraHTTPKit",
            dependencies: [
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The verifier node (`tessera node`): its own key, registry and errors. Never depends on
        // TesseraServer, PostgreSQL or SMTP (scripts/check-node-deps.sh checks it).
        // W3C WebAuthn Level 3 verification (registration and assertion, attestation formats none,
        // packed and fido-u2f, a strict CBOR decoder) and App Attest verification (attestation and assertion,
        // Apple's App Attestation Root CA pinned): no I/O, shared by the server and the verifier node.
        .target(
            name: "TesseraWebAuthn",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .target(
            name: "TesseraNode",
            dependencies: [
                "TesseraHTTPKit",
                "TesseraWebAuthn",
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The storage layer every server domain stands on: PostgreSQL, the leased delivery queues and
        // their one worker, rate counters, the start-up lock, the server's secrets and keys. Knows no
        // domain: the layers above it (accounts, sign-in, operations) and the composition root import it.
        .target(
            name: "TesseraStorage",
            dependencies: [
                "TesseraHTTPKit",
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Accounts: clients, users, devices, sessions, proofing (OTP), registration flows, the courier
        // (SMTP, SMS) and the audit log, with the request context every controller above shares.
        .target(
            name: "TesseraAccounts",
            dependencies: [
                "TesseraStorage",
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Sign-in: the auth channels, verifier nodes, push, the relying-party API, OIDC and the
        // authenticators. Knows accounts; never operations or the composition root.
        .target(
            name: "TesseraSignIn",
            dependencies: [
                "TesseraAccounts",
                "TesseraWebAuthn",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        // Operations: webhooks, the admin API, the console and metrics. Knows every layer below it.
        .target(
            name: "TesseraOperations",
            dependencies: [
                "TesseraSignIn",
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The console's files, compiled in through ConsoleAssets+Generated.swift (scripts/generate-console-assets.sh).
            exclude: ["Console/web"]
        ),
        // The composition root: configuration, start-up, the router built from each layer's routes.
        .target(
            name: "TesseraServer",
            dependencies: [
                "TesseraOperations",
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("OpenAPI/openapi.json")]
        ),
        .executableTarget(
            name: "TesseraCLI",
            dependencies: [
                "TesseraServer", "TesseraNode",
                .product(name: "Tessera", package: "Tessera"),
                .product(name: "TesseraAsyncHTTPClient", package: "TesseraTransports"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "TesseraBench",
            dependencies: [
                "TesseraServer", "TesseraSignIn", "TesseraSoftwareAuthenticator", "TesseraWebAuthn",
                .product(name: "Tessera", package: "Tessera"),
                .product(name: "TesseraAsyncHTTPClient", package: "TesseraTransports"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // A WebAuthn authenticator in software (a test double): for the tests and the benchmark's load generator.
        .target(
            name: "TesseraSoftwareAuthenticator",
            dependencies: [
                "TesseraSignIn", "TesseraWebAuthn", .product(name: "TesseraCore", package: "Tessera"), .product(name: "Tessera", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // What both test targets share: waiting for events without timing assertions, running
        // verifier nodes in the test process on loopback HTTP (``InProcessNodeLauncher``), the App Attest cases (mint.py).
        .target(
            name: "TesseraTestSupport",
            dependencies: [
                "TesseraServer", "TesseraNode", "TesseraWebAuthn", .product(name: "Logging", package: "swift-log"),
                .product(name: "TesseraCore", package: "Tessera"), .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Tests/TesseraTestSupport"
        ),
        // What the server's test targets share: a runtime on a fresh database of either kind, the sign-up, push
        // and mail fixtures (aiosmtpd), raw HTTP, captured logs. Reads the composition root's internals.
        .target(
            name: "TesseraServerTestSupport",
            dependencies: [
                "TesseraServer", "TesseraTestSupport", "TesseraNode", "TesseraWebAuthn", "TesseraSoftwareAuthenticator",
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/TesseraServerTestSupport"
        ),
        // The server's tests of the storage layer: engines, migrations, group commit, start-up, the ownership check.
        .testTarget(
            name: "TesseraWebAuthnTests",
            dependencies: [
                "TesseraWebAuthn", "TesseraTestSupport", .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .testTarget(
            name: "TesseraStorageTests",
            dependencies: serverTestDependencies
        ),
        // The server's tests of the accounts layer, one folder per domain.
        .testTarget(
            name: "TesseraAccountsTests",
            dependencies: serverTestDependencies
        ),
        // The server's tests of the sign-in layer, one folder per domain.
        .testTarget(
            name: "TesseraSignInTests",
            dependencies: serverTestDependencies
        ),
        // The server's tests of the operations layer, one folder per domain.
        .testTarget(
            name: "TesseraOperationsTests",
            dependencies: serverTestDependencies
        ),
        // The server's tests of the composition root: configuration, HTTP edges, bad input, start-up.
        .testTarget(
            name: "TesseraServerTests",
            dependencies: serverTestDependencies
        ),
        // The SDK against a live server, and the `tessera` command's client side.
        .testTarget(
            name: "TesseraTests",
            dependencies: [
                "TesseraServer", "TesseraServerTestSupport", "TesseraTestSupport", "TesseraNode", "TesseraWebAuthn",
                .product(name: "Tessera", package: "Tessera"),
                .product(name: "TesseraTesting", package: "Tessera"),
                .product(name: "TesseraAsyncHTTPClient", package: "TesseraTransports"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)
