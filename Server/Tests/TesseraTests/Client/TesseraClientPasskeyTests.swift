import Foundation
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// The user's own passkeys through the SDK against a live server: listed, renamed and deleted with calls
/// signed by the device key, only the device's user's; each change audited; a deleted passkey signs in no more.
@Suite("SDK: the user's passkeys")
struct TesseraClientPasskeyTests {
    static let bundle = "com.example.sdk-passkeys"
    static let origin = "https://login.example.com"

    static func register(_ runtime: TesseraRuntime, _ client: Client, userKey: String) async throws -> (PasskeyCredential, SoftwareAuthenticator) {
        let user = try #require(try await runtime.database.read { sql in try await runtime.repositories.users.find(clientId: client.id, userKey: userKey, in: sql) })
        var authenticator = SoftwareAuthenticator(origin: Self.origin)
        let options = try await runtime.passkeys.registrationOptions(client: client, userId: user.id, userName: user.email, displayName: user.name, binding: "t")
        let created = try await runtime.passkeys.finishRegistration(
            client: client, challengeId: options.challengeId, binding: "t", response: authenticator.create(options.options), name: "Laptop")
        return (created, authenticator)
    }

    @Test("list, rename, delete from the device; another user's passkey is unknown (7303); a bad name 1005; audited passkey.renamed and passkey.revoked with the device as actor; the deleted passkey signs in no more")
    func manage() async throws {
        try await LiveServer.run(bundleId: Self.bundle, configure: { $0.issuer = Self.origin }) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "rhea", bundleId: Self.bundle)
            _ = try await LiveServer.enrol(runtime, client, url, userKey: "sven", bundleId: Self.bundle)
            #expect(try await tessera.listPasskeys().isEmpty)
            let registered = try await Self.register(runtime, client, userKey: "rhea")
            let mine = registered.0
            var authenticator = registered.1
            let (theirs, _) = try await Self.register(runtime, client, userKey: "sven")

            let listed = try await tessera.listPasskeys()
            #expect(listed.map(\.id) == [mine.id] && listed.first?.name == "Laptop" && listed.first?.clientKey == client.clientKey)
            let renamed = try await tessera.renamePasskey(id: mine.id, name: "  Work laptop ")
            #expect(renamed.name == "Work laptop")
            #expect(try await tessera.listPasskeys().first?.name == "Work laptop")
            await #expect { _ = try await tessera.renamePasskey(id: mine.id, name: "line\nbreak") } throws: { ($0 as? TesseraError)?.code == .fieldInvalid }
            await #expect { _ = try await tessera.renamePasskey(id: theirs.id, name: "Mine now") } throws: { ($0 as? TesseraError)?.code == .passkeyUnknown }
            await #expect { try await tessera.deletePasskey(id: theirs.id) } throws: { ($0 as? TesseraError)?.code == .passkeyUnknown }
            await #expect { try await tessera.deletePasskey(id: "../admin") } throws: { ($0 as? TesseraError)?.code == .passkeyUnknown }

            try await tessera.deletePasskey(id: mine.id)
            #expect(try await tessera.listPasskeys().isEmpty)
            await #expect { try await tessera.deletePasskey(id: mine.id) } throws: { ($0 as? TesseraError)?.code == .passkeyUnknown }
            let request = try await runtime.passkeys.authenticationOptions(client: client, userId: nil, binding: "t")
            let assertion = try authenticator.get(request.options)
            await #expect { _ = try await runtime.passkeys.finishAuthentication(client: client, challengeId: request.challengeId, binding: "t", response: assertion) } throws: {
                ($0 as? AppError)?.code == .passkeyUnknown
            }
            #expect(try await runtime.passkeys.list(userId: theirs.userId, client: client).passkeys.map(\.name) == ["Laptop"], "the other user's passkey is untouched")

            let deviceId = try #require(try tessera.loadDeviceID())
            struct Row: Decodable { var type: String; var actor: String }
            try await runtime.repositories.audit.sequencer?.settle()  // PostgreSQL chains appends in the background
            let rows = try await runtime.database.read { sql in
                try await sql.raw("SELECT type, actor FROM audit_log WHERE type IN ('passkey.renamed', 'passkey.revoked') ORDER BY seq").all(decoding: Row.self)
            }
            #expect(rows.map(\.type) == ["passkey.renamed", "passkey.revoked"] && rows.allSatisfy { $0.actor == "device:\(deviceId)" }, "\(rows)")
        }
    }
}
