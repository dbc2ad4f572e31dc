import PostgresNIO

/// PostgreSQL going away under a request (a restart, a failover, a dropped connection): the request
/// answers 503 with ``ErrorCode/storageUnavailable`` instead of 500, and the client may retry. The pool
/// opens new connections by itself; a request that asks for a connection while PostgreSQL is down
/// waits for one. Whether a transaction whose connection dropped during its COMMIT was committed is not
/// known: it was not acknowledged either (503), and the client's retry meets what it left, as any retry.
package enum DatabaseOutage {
    /// SQLSTATEs of a server going away: connection exceptions (class 08), admin or crash shutdown and
    /// "cannot connect now" (57P01–57P03).
    static func isOutage(sqlState: String) -> Bool {
        sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    /// The problem for `error` if it says the database is unreachable, else `nil`.
    package static func problem(for error: any Error) -> AppError? {
        // The pool's own errors (no connection could be made for a while): its type is in postgres-nio's
        // underscored module, named here rather than imported.
        if String(reflecting: type(of: error)).hasSuffix("ConnectionPoolError") { return .storageUnavailable() }
        guard let error = error as? PSQLError else { return nil }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return .storageUnavailable()
        case .server:
            return error.serverInfo?[.sqlState].map(isOutage(sqlState:)) == true ? .storageUnavailable() : nil
        default:
            return nil
        }
    }
}
