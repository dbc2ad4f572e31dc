import Synchronization
import Testing
@testable import TesseraServer
import TesseraServerTestSupport

/// Group commit of node deliveries: one call at a time per node, and what arrives while a call is
/// out goes together in the next one; every caller returns once its own items were sent.
@Suite("Node delivery line")
struct NodeDeliveryLineTests {
    /// A send that reports each call and waits until the test lets it finish.
    final class HeldSend: Sendable {
        let calls: AsyncStream<[String]>
        private let callsIn: AsyncStream<[String]>.Continuation
        private let releases = Mutex<[CheckedContinuation<Void, Never>]>([])

        init() { (calls, callsIn) = AsyncStream<[String]>.makeStream() }

        func send(_ items: [NodeSyncItem]) async {
            await withCheckedContinuation { continuation in
                releases.withLock { $0.append(continuation) }
                callsIn.yield(items.map(\.deviceId).sorted())
            }
        }

        func releaseAll() { for continuation in releases.withLock({ list in defer { list = [] }; return list }) { continuation.resume() } }
    }

    /// The callers that have returned.
    final class Returned: Sendable {
        private let ids = Mutex<[String]>([])
        func add(_ id: String) { ids.withLock { $0.append(id) } }
        var all: [String] { ids.withLock { $0 } }
    }

    static func item(_ id: String) -> NodeSyncItem { NodeSyncItem(nodeId: "nd_1", deviceId: id, attempts: 0) }

    @Test("while a call is out, five more deliveries wait and go out together in one second call; all six callers return")
    func coalesces() async throws {
        let line = NodeDeliveryLine()
        let held = HeldSend()
        var calls = held.calls.makeAsyncIterator()
        let returned = Returned()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await line.deliver([Self.item("d0")]) { await held.send($0) }
                returned.add("d0")
            }
            #expect(await calls.next() == ["d0"])
            // The line is busy: these wait. Each caller is counted once it has queued.
            for index in 1...5 {
                group.addTask {
                    await line.deliver([Self.item("d\(index)")]) { await held.send($0) }
                    returned.add("d\(index)")
                }
            }
            #expect(returned.all.isEmpty)
            // Wait until all five have queued: release the first call only then, so the second call carries them all.
            while line.waitingCount < 5 { await Task.yield() }
            held.releaseAll()
            #expect(await calls.next() == ["d1", "d2", "d3", "d4", "d5"])
            held.releaseAll()
            try await group.waitForAll()
        }
        #expect(Set(returned.all) == ["d0", "d1", "d2", "d3", "d4", "d5"])
        // The line is free again: the next delivery goes out at once, alone.
        async let last: Void = line.deliver([Self.item("d6")]) { await held.send($0) }
        #expect(await calls.next() == ["d6"])
        held.releaseAll()
        await last
    }
}
