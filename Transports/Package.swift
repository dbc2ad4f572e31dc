// swift-tools-version:6.1
import PackageDescription

// The SDK's HTTP transport for Linux, on async-http-client (FoundationNetworking cannot stream the
// server-sent events a login follows). A package of its own so that an app adding the SDK (`..`)
// resolves swift-crypto alone: Linux apps, the `tessera` command and the benchmarks add this one too.
let package = Package(
    name: "TesseraTransports",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "TesseraAsyncHTTPClient", targets: ["TesseraAsyncHTTPClient"]),
    ],
    dependencies: [
        .package(name: "Tessera", path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(
            name: "TesseraAsyncHTTPClient",
            dependencies: [
                .product(name: "Tessera", package: "Tessera"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ]
)
