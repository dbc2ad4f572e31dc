import Crypto
import Foundation
import Synchronization
import Testing
import TesseraCore
import TesseraHTTPKit
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// A signed device call reads its device once: the signature check's lookup brings the device's
/// user and client along, and the authentication steps use that instead of reading it again.
@Suite("Signed device lookup")
struct SignedDeviceLookupTests {
    /// Counts the reads of the device lookup it wraps.
    final class CountingLookup: DeviceAuthLookup {
        let inner: any DeviceAuthLookup
        let reads = Atomic<Int>(0)

        init(_ inner: any DeviceAuthLookup) { self.inner = inner }

        func authTarget(deviceId: String) async throws -> DeviceAuthTarget? {
            reads.add(1, ordering: .relaxed)
            return try await inner.authTarget(deviceId: deviceId)
        }

        func userWithActiveDevice(clientId: String, userKey: String) async throws -> String? {
            try await inner.userWithActiveDevice(clientId: clientId, userKey: userKey)
        }
    }

    @Test("the signing key carries the device's user and client; a step given it reads nothing more", arguments: TestDatabase.kinds)
    func oneReadPerSignedCall(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let (_, logInput) = AsyncStream<AuthEvent>.makeStream()
            let repository = SQLDeviceRepository(database: runtime.database)
            let counting = CountingLookup(repository)
            let setup = try await AuthProgressTests.setUp(runtime, clock: runtime.clock, log: logInput, timeout: .seconds(60), devices: counting)

            let key = try #require(try await repository.signingKey(for: setup.deviceId))
            let signed = try #require(key.details)
            #expect(key.publicKey.rawRepresentation == setup.deviceKey.publicKey.rawRepresentation && !key.revoked)
            #expect(signed.deviceId == setup.deviceId && signed.clientId == setup.client.id && signed.active)

            _ = try await setup.flow.open(deviceId: setup.deviceId, client: setup.client, ip: nil, signed: signed)
            #expect(counting.reads.load(ordering: .relaxed) == 0)
            // Without it, or with another device's, the step reads the device itself.
            _ = try await setup.flow.open(deviceId: setup.deviceId, client: setup.client, ip: nil)
            #expect(counting.reads.load(ordering: .relaxed) == 1)
            var other = signed
            other.deviceId = "dev_other"
            _ = try await setup.flow.open(deviceId: setup.deviceId, client: setup.client, ip: nil, signed: other)
            #expect(counting.reads.load(ordering: .relaxed) == 2)

            // Another client's device is still unknown, and a revoked one still refused, when the device comes from the signature check.
            let stranger = try await runtime.makeTestClient()
            await expectCode(.deviceUnknown) { _ = try await setup.flow.open(deviceId: setup.deviceId, client: stranger, ip: nil, signed: signed) }
            _ = try await runtime.database.transaction { sql in try await repository.revoke(deviceId: setup.deviceId, now: runtime.clock.now(), in: sql) }
            let revoked = try #require(try await repository.signingKey(for: setup.deviceId))
            #expect(revoked.revoked)
            let revokedTarget = try #require(revoked.details)
            await expectCode(.deviceRevoked) {
                _ = try await setup.flow.open(deviceId: setup.deviceId, client: setup.client, ip: nil, signed: revokedTarget)
            }
            #expect(counting.reads.load(ordering: .relaxed) == 2)
            #expect(try await repository.signingKey(for: "dev_unknown") == nil)
        }
    }

    @Test("parsed keys: the same key for the same text, nothing kept for garbage, emptied at capacity")
    func keyCache() throws {
        let cache = P256KeyCache(capacity: 2)
        let keys = (0..<3).map { _ in P256.Signing.PrivateKey().publicKey }
        let texts = keys.map { $0.x963Representation.base64EncodedString() }
        #expect(cache.key(x963Base64: texts[0])?.rawRepresentation == keys[0].rawRepresentation)
        #expect(cache.key(x963Base64: texts[0])?.rawRepresentation == keys[0].rawRepresentation)
        #expect(cache.count == 1)
        #expect(cache.key(x963Base64: "bm90IGEga2V5") == nil)
        #expect(cache.key(x963Base64: "") == nil)
        #expect(cache.count == 1)
        #expect(cache.key(x963Base64: texts[1])?.rawRepresentation == keys[1].rawRepresentation)
        #expect(cache.count == 2)
        #expect(cache.key(x963Base64: texts[2])?.rawRepresentation == keys[2].rawRepresentation)
        #expect(cache.count == 1)
        #expect(cache.key(x963Base64: texts[0])?.rawRepresentation == keys[0].rawRepresentation)
    }
}
