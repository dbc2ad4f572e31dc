import Foundation
import Synchronization
import Testing
@testable import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer

/// The progress stream of a login is read until the server ends it (after the result), so that its
/// connection stays open for the next call; a login left without a result has its stream closed by
/// the SDK when the next one begins.
@Suite("SDK: progress stream to its end")
struct ProgressStreamEndTests {
    static let bundleId = "com.example.stream-end"

    /// How an event stream ended on the SDK's side.
    enum End: Sendable, Equatable {
        /// Read until the server ended the answer.
        case read
        /// Given up by the SDK before the end.
        case abandoned
    }

    /// How many event streams a transport opened.
    final class Opened: Sendable {
        let count = Mutex(0)
    }

    /// The platform transport, reporting how each event stream ended.
    struct RecordingStreams: HTTPTransport {
        let base: any HTTPTransport
        let ends: AsyncStream<End>.Continuation
        var opened = Opened()

        func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer {
            try await base.send(method: method, url: url, headers: headers, body: body)
        }

        func lines(url: URL, headers: [String: String]) async throws -> (status: Int, lines: AsyncThrowingStream<String, any Error>) {
            opened.count.withLock { $0 += 1 }
            let (status, lines) = try await base.lines(url: url, headers: headers)
            let ends = self.ends
            let watched = AsyncThrowingStream<String, any Error> { continuation in
                let task = Task {
                    do {
                        for try await line in lines { continuation.yield(line) }
                        if !Task.isCancelled { ends.yield(.read) }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { termination in
                    guard case .cancelled = termination else { return }
                    ends.yield(.abandoned)
                    task.cancel()
                }
            }
            return (status, watched)
        }
    }

    /// A device enrolled as `userKey` whose transport records its event streams, how they ended.
    static func recordingDevice(
        _ runtime: TesseraRuntime, _ client: Client, _ url: URL, userKey: String
    ) async throws -> (tessera: TesseraClient, ends: AsyncStream<End>, streams: RecordingStreams) {
        let keyStore = MemoryKeyStore()
        let enrolled = try await LiveServer.enrol(runtime, client, url, userKey: userKey, bundleId: Self.bundleId, keyStore: keyStore)
        let (ends, input) = AsyncStream.makeStream(of: End.self)
        let streams = RecordingStreams(base: enrolled.transport, ends: input)
        return (TesseraClient(configuration: enrolled.configuration, keyStore: keyStore, onTotalLog: nil, transport: streams), ends, streams)
    }

    @Test("a login reads its progress stream to the end; one left after the nodes attested has its stream closed when the next begins")
    func streamEnds() async throws {
        try await LiveServer.run(bundleId: Self.bundleId) { runtime, client, url in
            let (tessera, ends, _) = try await Self.recordingDevice(runtime, client, url, userKey: "stream-end")
            var iterator = ends.makeAsyncIterator()

            let statuses = TesseraClientAuthTests.Recorder()
            _ = try await tessera.authenticate(localAuthenticator: LiveServer.pin, reason: "Log in") { statuses.add($0) }
            #expect(await iterator.next() == .read)  // the server ended it after the outcome
            #expect(statuses.statuses == AuthStatus.allCases)

            let left = try await tessera.requestAuthRequest { _ in }
            #expect(left.missedStatuses.isEmpty)
            _ = try await tessera.authenticate(localAuthenticator: LiveServer.pin, reason: "Log in") { _ in }
            #expect(await iterator.next() == .abandoned)  // the login left without a result
            #expect(await iterator.next() == .read)
            // The server holds a stream until its channel ends, whether or not anyone still reads it:
            // end the left one rather than wait for its expiry at shutdown.
            try await tessera.requestAuthCancel(channel: left.channel)
        }
    }

    @Test("a login that asks for no progress opens no stream, and reaches its result all the same")
    func noProgressNoStream() async throws {
        try await LiveServer.run(bundleId: Self.bundleId) { runtime, client, url in
            let (tessera, _, streams) = try await Self.recordingDevice(runtime, client, url, userKey: "no-progress")

            let session = try await tessera.requestAuthRequest()
            #expect(session.nodes.count >= 2)
            #expect(session.missedStatuses.isEmpty)
            let token = try await tessera.requestAuthResult(isSecondaryCertification: true, unlockSecret: "482913")
            #expect(!token.isEmpty)
            #expect(streams.opened.count.withLock { $0 } == 0)

            _ = try await tessera.authenticate(localAuthenticator: LiveServer.pin, reason: "Log in") { _ in }
            #expect(streams.opened.count.withLock { $0 } == 1)  // asked for progress: one stream
        }
    }

    @Test(
        "twelve devices of one process each hold a progress stream open (more than a connection pool's usual eight): every call still goes through",
        .timeLimit(.minutes(3))
    )
    func manyHeldStreams() async throws {
        try await LiveServer.run(bundleId: Self.bundleId) { runtime, client, url in
            var devices: [TesseraClient] = []
            for index in 0..<12 {
                devices.append(try await LiveServer.enrol(runtime, client, url, userKey: "held-\(index)", bundleId: Self.bundleId))
            }
            // Each login stops after its nodes attested, its stream open until the result.
            let sessions = try await withThrowingTaskGroup(of: AuthSession.self) { group in
                for device in devices { group.addTask { try await device.requestAuthRequest { _ in } } }
                return try await group.reduce(into: [AuthSession]()) { $0.append($1) }
            }
            #expect(sessions.count == 12)
            #expect(sessions.allSatisfy { $0.missedStatuses.isEmpty })
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for device in devices { group.addTask { try await device.requestAuthResult(isSecondaryCertification: true, unlockSecret: "482913") } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(Set(tokens).count == 12)
        }
    }
}
