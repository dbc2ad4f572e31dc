// swift-tools-version:6.1
import PackageDescription

// Test-only: declarations transcribed from Apple's documentation, with Apple's module names, so that
// the SDK's Apple adapters type-check on Linux (see README.md). Never a dependency of anything.
let package = Package(
    name: "AppleShims",
    products: [
        .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
        .library(name: "Security", targets: ["Security"]),
        .library(name: "CryptoKit", targets: ["CryptoKit"]),
        .library(name: "URLSessionShims", targets: ["URLSessionShims"]),
        .library(name: "AuthenticationServices", targets: ["AuthenticationServices"]),
        .library(name: "DeviceCheck", targets: ["DeviceCheck"]),
    ],
    dependencies: [.package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0")],
    targets: [
        .target(name: "LocalAuthentication"),
        .target(name: "Security"),
        .target(name: "URLSessionShims"),
        .target(name: "AuthenticationServices"),
        .target(name: "DeviceCheck"),
        .target(
            name: "CryptoKit",
            dependencies: ["LocalAuthentication", "Security", .product(name: "Crypto", package: "swift-crypto")]
        ),
    ]
)
