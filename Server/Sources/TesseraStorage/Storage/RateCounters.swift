import SQLKit

/// Fixed-window counters in the database, shared by every instance. Incrementing is one atomic
/// upsert, so concurrent requests never lose a count.
///
/// A key that many concurrent requests count (an app's, an address's: `shared`) would be one row that
/// each of them updates, holding its lock until it commits: on PostgreSQL, where transactions run side
/// by side, that row is where every request waited. Such a key is spread over ``shards`` rows there,
/// one picked at random by each call, and its count is the sum of its rows (the unspread row
/// included, so a window counted before the spread still counts). The sum sees what other requests
/// committed: concurrent requests can pass a shared key's limit by at most their number. Keys of one
/// subject (a user, an address's OTP target) and SQLite (one writer) stay one row.
///
/// With a ``SharedCounterBuffer`` (one per instance, on PostgreSQL), the shared keys are counted in memory and
/// added to their rows in batches instead: no request writes their rows (see the buffer for what that costs).
package struct RateCounters: Sendable {
    /// Rows a shared key is spread over on PostgreSQL.
    package static let shards = 16

    /// Where shared keys are counted on PostgreSQL; nil: in each request's transaction.
    package let buffer: SharedCounterBuffer?

    /// Counters on the database handle each call is given; shared keys in `buffer` when there is one.
    package init(buffer: SharedCounterBuffer? = nil) {
        self.buffer = buffer
    }

    /// Adds one to `key` in the window containing `now` and returns the new count (`shared`: spread,
    /// see the type's description).
    package func increment(_ key: String, shared: Bool = false, now: Int64, window: Duration, in sql: any SQLDatabase) async throws -> Int {
        let counts = shared
            ? try await increment([], shared: [key], now: now, window: window, in: sql)
            : try await increment([key], now: now, window: window, in: sql)
        return counts[key] ?? 0
    }

    /// Adds one to each key (distinct keys) in the window containing `now` and returns the new counts
    /// by key: `keys` in one row each, `shared` spread over ``shards`` rows on PostgreSQL (or in ``buffer``).
    package func increment(
        _ keys: [String], shared: [String] = [], now: Int64, window: Duration, in sql: any SQLDatabase
    ) async throws -> [String: Int] {
        let spread = Self.spreads(on: sql), start = Self.windowStart(now, window)
        var counts: [String: Int] = [:]
        var counted = shared
        if spread, let buffer, !shared.isEmpty {
            counted = []
            for key in shared {
                if let total = buffer.add(key, windowStart: start) { counts[key] = total } else { counted.append(key) }
            }
            buffer.flushIfDue(now: now)
        }
        guard !keys.isEmpty || !counted.isEmpty else { return counts }
        let found = try await add(
            Dictionary(keys.map { ($0, 1) }, uniquingKeysWith: +), shared: Dictionary(counted.map { ($0, 1) }, uniquingKeysWith: +),
            spread: spread, windowStart: start, in: sql
        )
        if spread, let buffer {
            for key in counted { buffer.remember(key, windowStart: start, total: found[key] ?? 0) }
        }
        return counts.merging(found) { $1 }
    }

    /// Takes back the counts of `shared` that ``increment(_:shared:now:window:in:)`` made in ``buffer``, for a
    /// request refused after counting (its transaction rolls back the rest). Nothing without a buffer.
    package func release(shared: [String], now: Int64, window: Duration, in sql: any SQLDatabase) {
        guard Self.spreads(on: sql) else { return }
        releaseInMemory(shared: shared, now: now, window: window)
    }

    /// Counts `shared` in ``buffer`` only (PostgreSQL), for a request whose other keys are counted inside a statement
    /// it composes (``limitedIncrement(_:limit:now:window:)``): their totals, or nil when nothing was counted, because
    /// there is no buffer or a key's total is not known in memory yet (the caller then counts with
    /// ``increment(_:shared:now:window:in:)``, which reads it). Take the counts back with
    /// ``releaseInMemory(shared:now:window:)`` if the request is refused.
    package func incrementInMemory(shared: [String], now: Int64, window: Duration) -> [String: Int]? {
        guard let buffer, Self.shards > 1 else { return nil }
        let start = Self.windowStart(now, window)
        var counts: [String: Int] = [:]
        for key in shared {
            guard let total = buffer.add(key, windowStart: start) else {
                for counted in counts.keys { buffer.release(counted, windowStart: start) }
                return nil
            }
            counts[key] = total
        }
        buffer.flushIfDue(now: now)
        return counts
    }

    /// Takes back the counts of ``incrementInMemory(shared:now:window:)``.
    package func releaseInMemory(shared: [String], now: Int64, window: Duration) {
        guard let buffer else { return }
        let start = Self.windowStart(now, window)
        for key in shared { buffer.release(key, windowStart: start) }
    }

    /// The counts of `keys` (keys of one subject each: one row each; distinct) of a batch of requests made at `now`
    /// (one time per key), in a statement their caller composes (PostgreSQL), counted only below `limit`
    /// (``LimitedIncrement``). The arrays are bound whole: one statement text whatever the batch's size.
    package func limitedIncrement(_ keys: [String], limit: Int, now: [Int64], window: Duration) -> LimitedIncrement {
        let starts = now.map { Self.windowStart($0, window) }
        let rows: SQLQueryString = """
            unnest(\(bind: keys)::text[], \(bind: starts)::int8[]) WITH ORDINALITY AS k(counter_key, window_start, ord)
            """
        return LimitedIncrement(
            isBelow: """
                SELECT k.ord, COALESCE(r.count, 0) < \(bind: limit) AS ok FROM \(rows)
                LEFT JOIN rate_counters r ON r.counter_key = k.counter_key AND r.window_start = k.window_start
                """,
            increment: { selected in
                """
                INSERT INTO rate_counters (counter_key, window_start, count)
                SELECT k.counter_key, k.window_start, 1 FROM \(rows) WHERE 0 < \(bind: limit) AND k.ord IN \(selected)
                ON CONFLICT (counter_key, window_start) DO UPDATE SET count = rate_counters.count + 1
                WHERE rate_counters.count < \(bind: limit)
                RETURNING counter_key
                """
            }
        )
    }

    /// Whether shared keys are spread over ``shards`` rows (and counted in ``buffer``) on `sql`: on PostgreSQL.
    private static func spreads(on sql: any SQLDatabase) -> Bool { sql.dialect.name == "postgresql" && shards > 1 }

    /// The start of the fixed window of length `window` that contains `now`.
    private static func windowStart(_ now: Int64, _ window: Duration) -> Int64 { now - now % window.millis }

    /// Adds each shared key's delta to one of its rows in the window starting at `windowStart` and returns the
    /// keys' totals over all their rows (the ``SharedCounterBuffer``'s flush).
    package func add(sharedDeltas: [String: Int], windowStart: Int64, in sql: any SQLDatabase) async throws -> [String: Int] {
        guard !sharedDeltas.isEmpty else { return [:] }
        return try await add([:], shared: sharedDeltas, spread: Self.spreads(on: sql), windowStart: windowStart, in: sql)
    }

    /// Adds `keys`' deltas to their rows and `shared`'s to one of their rows each (spread: a random one of
    /// ``shards``), in one statement that also reads the shared keys' other rows; the totals by key.
    private func add(
        _ keys: [String: Int], shared: [String: Int], spread: Bool, windowStart start: Int64, in sql: any SQLDatabase
    ) async throws -> [String: Int] {
        let shard = spread ? Int.random(in: 0..<Self.shards) : 0
        let rows = keys.sorted { $0.key < $1.key }.map { (row: $0.key, delta: $0.value) }
            + shared.sorted { $0.key < $1.key }.map { (row: spread ? "\($0.key)#\(shard)" : $0.key, delta: $0.value) }
        guard !rows.isEmpty else { return [:] }
        var upsert = SQLQueryString("INSERT INTO rate_counters (counter_key, window_start, count) VALUES ")
        for (index, row) in rows.enumerated() {
            upsert.appendInterpolation(unsafeRaw: index == 0 ? "" : ", ")
            upsert.appendInterpolation("(\(bind: row.row), \(bind: start), \(bind: row.delta))" as SQLQueryString)
        }
        upsert.appendInterpolation(
            unsafeRaw: " ON CONFLICT (counter_key, window_start) DO UPDATE SET count = rate_counters.count + excluded.count RETURNING counter_key, count"
        )
        // On PostgreSQL, each shared key's other rows, as committed, are read in the same statement as the upsert (one
        // round trip): the outer SELECT sees the table as it was before the upsert, and reads none of the upserted rows.
        var others: [String: String] = [:]
        var query = upsert
        if spread, !shared.isEmpty {
            for key in shared.keys {
                others[key] = key
                for other in 0..<Self.shards where other != shard { others["\(key)#\(other)"] = key }
            }
            query = SQLQueryString("WITH upserted AS (")
            query.appendInterpolation(upsert)
            query.appendInterpolation(
                ") SELECT counter_key, count FROM upserted UNION ALL SELECT counter_key, count FROM rate_counters WHERE window_start = \(bind: start) AND counter_key IN (\(binds: others.keys.sorted()))" as SQLQueryString
            )
        }
        var counts: [String: Int] = [:]
        for row in try await sql.raw(query).all() {
            let name = try row.decode(column: "counter_key", as: String.self), count = try row.decode(column: "count", as: Int.self)
            counts[others[name] ?? name, default: 0] += count
        }
        if spread {
            for key in shared.keys {
                let own = counts.removeValue(forKey: "\(key)#\(shard)") ?? 0
                counts[key, default: 0] += own
            }
        }
        return counts
    }

    /// Removes windows that ended before `cutoff`.
    package func purge(before cutoff: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM rate_counters WHERE window_start < \(bind: cutoff)").run()
    }
}
