// swift-tools-version:6.1
import PackageDescription

// The SDK an app embeds, and the wire types it shares with the server. An app that adds this
// package resolves only swift-crypto (and its swift-asn1). The server, the verifier node and the
// `tessera` command are a package of their own in `Server/`; the HTTP transport for Linux
// (async-http-client) is one in `Transports/`. Both depend on this one by path.
let package = Package(
    name: "Tessera",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Tessera", targets: ["Tessera"]),
        .library(name: "TesseraCore", targets: ["TesseraCore"]),
        // Test doubles for apps' tests (mock biometric and passcode verifiers): never for shipping code.
        .library(name: "TesseraTesting", targets: ["TesseraTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
    ],
    targets: [
        // Wire types, error codes and the request-signature format shared by the SDK and the server.
        .target(name: "TesseraCore", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // The SDK that apps embed: URLSession on Apple platforms; on Linux the app passes a transport
        // (Transports/: async-http-client).
        .target(
            name: "Tessera",
            dependencies: [
                "TesseraCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Test doubles for what cannot run here (Apple's LocalAuthentication), named as such.
        .target(name: "TesseraTesting", dependencies: ["Tessera", "TesseraCore"]),
        // The SDK's own tests, no server needed. The tests against a live server are in Server/Tests.
        .testTarget(name: "TesseraSDKTests", dependencies: ["Tessera", "TesseraCore", .product(name: "Crypto", package: "swift-crypto")]),
    ]
)

// The DocC plugin (`swift package generate-documentation`), only for building the documentation
// (scripts/docs.sh sets TESSERA_DOCS=1): apps that depend on this package never resolve it.
if Context.environment["TESSERA_DOCS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"))
}
