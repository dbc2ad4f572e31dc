import PostgresNIO
import TesseraHTTPKit

/// Which unique constraint a failed insert broke, on either engine, so callers can answer with the
/// right code instead of a 500. Returns the constraint or column text the engine reported.
package enum UniqueViolation {
    package static func detail(of error: any Error) -> String? {
        if let error = error as? PSQLError, error.serverInfo?[.sqlState] == "23505" {
            return error.serverInfo?[.constraintName] ?? error.serverInfo?[.message] ?? ""
        }
        if let error = error as? SQLiteStatementError, error.isUniqueViolation {
            return error.message
        }
        return nil
    }
}
