import Foundation
import Synchronization
import Testing
@testable import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer

/// "Progress that cannot lie": when the progress stream fails, the login still reaches its quorum,
/// reports no status it never received, and tells the caller which ones were lost.
@Suite("SDK: lost progress")
struct ProgressLossTests {
    static let bundleId = "com.example.progress"

    /// The platform transport, except that every event stream answers 503 (a proxy that cuts them).
    struct NoEventStreams: HTTPTransport {
        let base: any HTTPTransport
        func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer {
            try await base.send(method: method, url: url, headers: headers, body: body)
        }
        func lines(url: URL, headers: [String: String]) async throws -> (status: Int, lines: AsyncThrowingStream<String, any Error>) {
            (503, AsyncThrowingStream { $0.finish() })
        }
    }

    @Test("a failed progress stream: quorum reached, no status reported, every step in missedStatuses, ProgressLost in the callback form")
    func lostStream() async throws {
        try await LiveServer.run(bundleId: Self.bundleId) { runtime, client, url in
            let keyStore = MemoryKeyStore()
            let enrolled = try await LiveServer.enrol(runtime, client, url, userKey: "prog", bundleId: Self.bundleId, keyStore: keyStore)
            let lines = Mutex([String]())
            let cut = TesseraClient(
                configuration: enrolled.configuration, keyStore: keyStore, onTotalLog: { line in lines.withLock { $0.append(line) } },
                transport: NoEventStreams(base: enrolled.transport)
            )
            let reported = Mutex([AuthStatus]())
            let session = try await cut.requestAuthRequest { status in reported.withLock { $0.append(status) } }
            #expect(session.nodes.count >= 2)  // the quorum was reached all the same
            #expect(reported.withLock { $0 }.isEmpty)
            #expect(session.missedStatuses == AuthStatus.allCases)
            #expect(lines.withLock { $0 }.contains { $0.hasPrefix("✗ progress lost") })
            _ = try await cut.requestAuthResult(isSecondaryCertification: true, unlockSecret: "482913")

            let processed = Mutex([String]())
            await TesseraCallbacks(client: cut).requestAuthRequest(
                onSuccess: { _, _, _, _, _, _ in processed.withLock { $0.append("success") } },
                onProcess: { status in processed.withLock { $0.append(status) } }, onFailed: { code, _ in processed.withLock { $0.append("failed \(code)") } },
                onError: { error in processed.withLock { $0.append("error \(error)") } }
            ).wait()
            #expect(processed.withLock { $0 } == [TesseraCallbacks.progressLost, "success"])
        }
    }
}
