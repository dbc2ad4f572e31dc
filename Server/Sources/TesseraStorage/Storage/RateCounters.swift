import SQLKit

/// Fixed-window counters in the database, shared by every instance. Incrementing is one atomic
/// upsert, so concurrent requests never lose a count.
package struct RateCounters: Sendable {
    /// Counters on the database handle each call is given.
    package init() {}

    /// Adds one to `key` in the window containing `now` and returns the new count.
    package func increment(_ key: String, now: Int64, window: Duration, in sql: any SQLDatabase) async throws -> Int {
        try await increment([key], now: now, window: window, in: sql)[key] ?? 0
    }

    /// Adds one to each key (distinct keys) in the window containing `now`, in one statement, and
    /// returns the new counts by key.
    package func increment(_ keys: [String], now: Int64, window: Duration, in sql: any SQLDatabase) async throws -> [String: Int] {
        guard !keys.isEmpty else { return [:] }
        let windowMillis = window.millis
        let start = now - now % windowMillis
        var query = SQLQueryString("INSERT INTO rate_counters (counter_key, window_start, count) VALUES ")
        for (index, key) in keys.enumerated() {
            query.appendInterpolation(unsafeRaw: index == 0 ? "" : ", ")
            query.appendInterpolation("(\(bind: key), \(bind: start), 1)" as SQLQueryString)
        }
        query.appendInterpolation(
            unsafeRaw: " ON CONFLICT (counter_key, window_start) DO UPDATE SET count = rate_counters.count + 1 RETURNING counter_key, count"
        )
        var counts: [String: Int] = [:]
        for row in try await sql.raw(query).all() {
            counts[try row.decode(column: "counter_key", as: String.self)] = try row.decode(column: "count", as: Int.self)
        }
        return counts
    }

    /// Removes windows that ended before `cutoff`.
    package func purge(before cutoff: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM rate_counters WHERE window_start < \(bind: cutoff)").run()
    }
}
