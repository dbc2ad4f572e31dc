// swift-tools-version:6.1
import PackageDescription

// A short SwiftUI sample of the SDK on Apple platforms (sign-up, login with Face ID, the progress
// stream, push handling). Built by .github/workflows/apple.yml for macOS and the iOS Simulator; an app
// adds `@main` to an `App` that shows `SampleRootView`.
let package = Package(
    name: "TesseraSampleApp",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [.library(name: "TesseraSampleApp", targets: ["TesseraSampleApp"])],
    dependencies: [.package(name: "Tessera", path: "../..")],
    targets: [.target(name: "TesseraSampleApp", dependencies: [.product(name: "Tessera", package: "Tessera")])]
)
