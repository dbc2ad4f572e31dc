import Crypto
import Foundation
import SQLKit
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// Push fixtures for the server tests: a client with push settings and a user whose device has a token, a
/// relying-party request that wakes it, and the APNs/FCM peer.
package enum PushFixtures {
    /// A client with push settings and one user whose device has a push token.
    package struct Fixture {
        package let client: Client
        package let userId: String
        package let userKey: String
        package let deviceId: String
        package let deviceToken: String
    }

    /// The real time: the peer checks that the provider token's `iat` is not in the future.
    package static func clock() -> ManualClock { ManualClock(start: Int64(Date().timeIntervalSince1970 * 1000)) }

    package static func fixture(_ runtime: TesseraRuntime, settings: PushSettingsUpdate, name: String = "alice") async throws -> Fixture {
        let client = try await runtime.makeTestClient()
        _ = try await runtime.pushAdmin.set(settings, clientKey: client.clientKey)
        return try await user(runtime, client: client, name: name)
    }

    package static func user(_ runtime: TesseraRuntime, client: Client, name: String) async throws -> Fixture {
        let userId = "usr_" + UUID().uuidString
        let deviceId = "dev_" + UUID().uuidString
        let token = "token-" + UUID().uuidString.lowercased()
        let userKey = "key-" + name
        let now = runtime.clock.now()
        let stores = runtime.repositories
        let key = P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString()
        try await runtime.database.transaction { sql in
            try await stores.users.insert(
                UserRecord(id: userId, clientId: client.id, userKey: userKey, name: "Alice Example", email: "\(name)@example.org",
                           phone: "+4179" + String(Int.random(in: 1_000_000...9_999_999)), localAuthType: "none", createdAt: now),
                in: sql
            )
            try await stores.devices.insert(
                DeviceRecord(id: deviceId, userId: userId, clientId: client.id, deviceKey: key, userVerificationKey: key, os: "iOS",
                             appVersion: "1.0", pushToken: token, totpSecretSealed: "", createdAt: now),
                in: sql
            )
        }
        return Fixture(client: client, userId: userId, userKey: userKey, deviceId: deviceId, deviceToken: token)
    }

    package static func request(_ runtime: TesseraRuntime, _ fixture: Fixture, message: String = "Log in to Example Shop") async throws -> String {
        try await runtime.auth.relyingParty.create(
            client: fixture.client, request: RPAuthRequest(userKey: fixture.userKey, connectIp: "198.51.100.7", message: message)
        ).requestId
    }

    package static func withPeer(apns: [String] = [], fcm: [String] = [], _ body: (PushPeer) async throws -> Void) async throws {
        let peer = try await PushPeer(apns: apns, fcm: fcm)
        do {
            try await body(peer)
        } catch {
            print("push peer log:\n\(peer.log)")
            peer.stop()
            throw error
        }
        peer.stop()
    }

    package static func configure(_ peer: PushPeer) -> (inout ServerConfiguration) -> Void {
        { $0.pushCAFile = peer.certificate.certificate; $0.channelLifetime = .seconds(600) }
    }
}
