import NIOCore
import NIOPosix
import Testing
@testable import TesseraHTTPKit
import TesseraServerTestSupport

/// The start-up probe of the listen address (`tessera serve`, `tessera node`) must never keep a
/// client's connection: one that connects while the probe is bound is closed with it.
@Suite("Listen address check")
struct ListenAddressCheckTests {
    @Test("a client that connects while the probe is bound is closed with the probe, not left waiting")
    func connectionDuringProbeIsClosed() async throws {
        let probe = try await ListenAddressCheck.probe(host: "127.0.0.1", port: 0)
        let port = try #require(probe.localAddress?.port)
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
        try await probe.close()
        // Awaits the event itself; before the fix the accepted connection stayed open for ever, and
        // only this bound (far above any real close) ends the wait.
        let closed = await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await client.closeFuture.get()) != nil }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                return false
            }
            let first = await group.next() ?? false
            if !first { try? await client.close() }  // else the close wait would hold the group open
            group.cancelAll()
            return first
        }
        #expect(closed)
        try? await client.close()
    }

    @Test("a taken port is refused with a message naming it")
    func takenPort() async throws {
        let holder = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(holder.localAddress?.port)
        await #expect(throws: ConfigurationError.self) { try await ListenAddressCheck.check(host: "127.0.0.1", port: port) }
        try await holder.close()
    }
}
