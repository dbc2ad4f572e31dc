import Synchronization
import TesseraHTTPKit

/// The counts of shared rate-limit keys (an app's, an address's: the keys every request of an app or of an
/// address counts) kept by one instance in memory and added to the database in batches, so that no request
/// writes a row that every other request writes too.
///
/// Counted in the database inside each request's transaction, such a key was a handful of rows each request
/// locked until it committed; on PostgreSQL the OTP sends of one app queued on them (0.9 ms of PostgreSQL's
/// time per send, lock waits included). Here a request adds one in memory and reads the key's total as the
/// database had it at the last flush plus what this instance counted since; every ``flushInterval`` the first
/// request past it starts a flush that adds the instance's counts to the key's rows and reads the new total
/// (which includes what the other instances flushed).
///
/// What that costs, said in the README and the production guide: another instance's counts are seen up to a
/// flush interval late, so several instances together can pass a shared limit by what they accept in that
/// time; and a process that ends loses what it counted since its last flush (at most a flush interval's).
/// A key this instance has not seen in the window yet is counted in the database the first time (its total
/// is read there); past ``maxKeys`` keys every new key is counted in the database.
package final class SharedCounterBuffer: Sendable {
    /// How often the counts go to the database (milliseconds of the injected clock).
    package let flushInterval: Int64
    /// The most keys kept (per-address keys are as many as the addresses that send).
    package let maxKeys: Int
    /// Where the counts are added.
    package let database: any Database

    private struct Slot: Hashable {
        var key: String
        var windowStart: Int64
    }

    private struct Count {
        /// The key's total in the database when this instance last wrote or read it.
        var stored: Int
        /// Counted here since, not yet in the database.
        var pending: Int
    }

    private struct State {
        var counts: [Slot: Count] = [:]
        /// When the last flush began (the first count's time before any).
        var lastFlush: Int64?
        var flushing = false
    }

    private let state = Mutex(State())

    package init(database: any Database, flushInterval: Int64 = 100, maxKeys: Int = 10_000) {
        self.database = database
        self.flushInterval = flushInterval
        self.maxKeys = maxKeys
    }

    /// Counts one for `key` in the window starting at `windowStart` and returns its total (the database's at
    /// the last flush plus this instance's since); nil when the key's total is not known here yet (the caller
    /// counts it in the database, then ``remember(_:windowStart:total:)``s it).
    package func add(_ key: String, windowStart: Int64) -> Int? {
        state.withLock { state in
            let slot = Slot(key: key, windowStart: windowStart)
            guard var count = state.counts[slot] else { return nil }
            count.pending += 1
            state.counts[slot] = count
            return count.stored + count.pending
        }
    }

    /// Takes back one count of `key` (the request that counted it was refused and rolled back): from the counts
    /// not yet flushed, else from the total read (the count was made in the rolled-back transaction).
    package func release(_ key: String, windowStart: Int64) {
        state.withLock { state in
            let slot = Slot(key: key, windowStart: windowStart)
            guard var count = state.counts[slot] else { return }
            if count.pending > 0 { count.pending -= 1 } else { count.stored = max(0, count.stored - 1) }
            state.counts[slot] = count
        }
    }

    /// Keeps `total`, counted in the database by the caller, as the key's total in the window; later calls of
    /// ``add(_:windowStart:)`` count it here. Windows other than this one are dropped once they have no
    /// pending counts.
    package func remember(_ key: String, windowStart: Int64, total: Int) {
        state.withLock { state in
            let slot = Slot(key: key, windowStart: windowStart)
            if var count = state.counts[slot] {
                count.stored = max(count.stored, total)
                state.counts[slot] = count
            } else if state.counts.count < maxKeys {
                state.counts[slot] = Count(stored: total, pending: 0)
            }
        }
    }

    /// Starts a flush in the background when the last one (or the first call) was ``flushInterval`` or more
    /// before `now` and none is running.
    package func flushIfDue(now: Int64) {
        let due = state.withLock { state -> Bool in
            guard let last = state.lastFlush else {
                state.lastFlush = now
                return false
            }
            guard !state.flushing, now - last >= flushInterval else { return false }
            state.flushing = true
            state.lastFlush = now
            return true
        }
        guard due else { return }
        Task.detached { try? await self.flushNow(claimed: true) }
    }

    /// Adds every pending count to the database now and reads the keys' totals back; the counts stay pending
    /// (for the next flush) when the database refuses. Keys of windows older than the newest one counted
    /// are forgotten once nothing of theirs is pending (the buffer's users count in one window length).
    package func flush() async throws {
        try await flushNow(claimed: false)
    }

    private func flushNow(claimed: Bool) async throws {
        var taken: [Slot: Int]?
        while taken == nil {
            taken = state.withLock { state -> [Slot: Int]? in
                guard claimed || !state.flushing else { return nil }
                state.flushing = true
                var taken: [Slot: Int] = [:]
                for (slot, count) in state.counts where count.pending > 0 { taken[slot] = count.pending }
                return taken
            }
            // An explicit flush waits for the one running in the background to end, then takes what is left.
            if taken == nil { try await Task.sleep(for: .milliseconds(5)) }
        }
        guard let taken else { return }
        var totals: [Slot: Int] = [:]
        defer {
            state.withLock { state in
                for (slot, delta) in taken {
                    guard var count = state.counts[slot] else { continue }
                    if let total = totals[slot] {
                        count.pending -= delta
                        count.stored = total
                    }
                    state.counts[slot] = count
                }
                if let newest = state.counts.keys.map(\.windowStart).max() {
                    state.counts = state.counts.filter { $0.key.windowStart >= newest || $0.value.pending > 0 }
                }
                state.flushing = false
            }
        }
        let byWindow = Dictionary(grouping: taken, by: { $0.key.windowStart })
        for (windowStart, deltas) in byWindow {
            let added = Dictionary(uniqueKeysWithValues: deltas.map { ($0.key.key, $0.value) })
            let counted = try await database.withSQL { sql in
                try await RateCounters().add(sharedDeltas: added, windowStart: windowStart, in: sql)
            }
            for (key, total) in counted { totals[Slot(key: key, windowStart: windowStart)] = total }
        }
    }
}
