import SQLKit

/// Fixed-window counters in the database, shared by every instance. Incrementing is one atomic
/// upsert, so concurrent requests never lose a count.
struct RateCounters: Sendable {
    /// Adds one to `key` in the window containing `now` and returns the new count.
    func increment(_ key: String, now: Int64, window: Duration, in sql: any SQLDatabase) async throws -> Int {
        let windowMillis = window.millis
        let start = now - now % windowMillis
        let row = try await sql.raw(
            """
            INSERT INTO rate_counters (counter_key, window_start, count) VALUES (\(bind: key), \(bind: start), 1)
            ON CONFLICT (counter_key, window_start) DO UPDATE SET count = rate_counters.count + 1
            RETURNING count
            """
        ).first()
        return try row?.decode(column: "count", as: Int.self) ?? 0
    }

    /// Removes windows that ended before `cutoff`.
    func purge(before cutoff: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM rate_counters WHERE window_start < \(bind: cutoff)").run()
    }
}
