import Foundation
import Synchronization
import Testing
import Tessera

@Suite("Local authentication")
struct LocalAuthTests {
    final class Clock: Sendable {
        private let value = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 += seconds } }
    }

    final class Entries: Sendable {
        private let queue: Mutex<[String?]>
        init(_ queue: [String?]) { self.queue = Mutex(queue) }
        func next() -> String? { queue.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
    }

    let request = LocalAuthRequest(localAuthType: .pin, reason: "Confirm it is you")

    @Test("right PIN succeeds, wrong PIN fails, cancel is USER_CANCEL, nothing enrolled is NOT_ENROLLED")
    func basics() async throws {
        let entries = Entries(["123456", "654321", nil])
        let verifier = SoftwareSecretAuthenticator(type: .pin, store: MemorySecretVerifierStore()) { _ in entries.next() }
        await #expect(throws: LocalAuthError(.notEnrolled)) { try await verifier.authenticate(request) }
        try verifier.enroll(secret: "123456")
        let result = try await verifier.authenticate(request)
        #expect(result.enteredSecret == "123456")
        await #expect(throws: LocalAuthError(.authFailed, remainingAttempts: 4)) { try await verifier.authenticate(request) }
        await #expect(throws: LocalAuthError(.userCancel)) { try await verifier.authenticate(request) }
    }

    @Test("five wrong entries lock it out, even against the right one, until the lock-out ends")
    func lockout() async throws {
        let clock = Clock()
        let entries = Entries(Array(repeating: "000000", count: 5) + ["123456", "123456"])
        let verifier = SoftwareSecretAuthenticator(type: .pin, store: MemorySecretVerifierStore(), lockout: 300, now: { clock.now }) { _ in
            entries.next()
        }
        try verifier.enroll(secret: "123456")
        for attempt in 1...4 {
            // Each wrong entry tells how many remain before the lock-out.
            await #expect(throws: LocalAuthError(.authFailed, remainingAttempts: 5 - attempt)) { try await verifier.authenticate(request) }
        }
        do {
            _ = try await verifier.authenticate(request)
            Issue.record("fifth wrong PIN accepted")
        } catch let error as LocalAuthError {
            #expect(error.code == .lockedOut)
            #expect(error.retryAfter == clock.now.addingTimeInterval(300))
        }
        do {
            _ = try await verifier.authenticate(request)
            Issue.record("right PIN accepted while locked out")
        } catch let error as LocalAuthError {
            #expect(error.code == .lockedOut)
        }
        clock.advance(301)
        #expect(try await verifier.authenticate(request).enteredSecret == "123456")
    }

    @Test("the file store is private and never holds the secret in clear")
    func fileStore() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pin-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let verifier = SoftwareSecretAuthenticator(type: .password, store: FileSecretVerifierStore(path: path)) { _ in "correct horse battery" }
        try verifier.enroll(secret: "correct horse battery")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("correct horse battery"))
        // A second verifier over the same file (the app restarted) accepts the same secret.
        let again = SoftwareSecretAuthenticator(type: .password, store: FileSecretVerifierStore(path: path)) { _ in "correct horse battery" }
        #expect(try await again.authenticate(LocalAuthRequest(localAuthType: .password, reason: "r")).enteredSecret == "correct horse battery")
    }

    @Test("the scripted verifier answers in order and records what it was asked")
    func scripted() async throws {
        let scripted = ScriptedLocalAuthenticator([.success(LocalAuthResult(domainState: Data([1]))), .failure(LocalAuthError(.domainStateChanged))])
        let biometric = LocalAuthRequest(localAuthType: .biometric, reason: "r", checkDomainStateChanged: true, savedDomainState: Data([1]))
        #expect(try await scripted.authenticate(biometric).domainState == Data([1]))
        await #expect(throws: LocalAuthError(.domainStateChanged)) { try await scripted.authenticate(biometric) }
        await #expect(throws: LocalAuthError(.authFailed)) { try await scripted.authenticate(biometric) }
        #expect(scripted.requests.count == 3 && scripted.requests[0].checkDomainStateChanged)
    }
}
