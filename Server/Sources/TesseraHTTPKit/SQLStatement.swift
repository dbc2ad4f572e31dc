import SQLKit

/// A statement written with a `?` for each bound value, for the hottest queries: SQLite runs the
/// text as written, with no serialisation (SQLKit's serialiser walks an interpolated query fragment
/// by fragment, a dynamic call and a string append each: 3 % of a TOTP verification's CPU, inside
/// the writer's batch); other dialects get their own placeholders from the usual serialiser.
///
/// The text must not contain a `?` other than the placeholders (no `?` in a string literal); the
/// number of placeholders must be the number of binds (checked when it is made: the text is a
/// literal of the source, so a mismatch is a programming error that a test of the query finds).
public struct SQLStatement: SQLExpression {
    /// The statement, with `?` for each bound value.
    public let text: String
    /// The bound values, in the order of their placeholders.
    public let binds: [any Encodable & Sendable]

    public init(_ text: String, _ binds: [any Encodable & Sendable]) {
        precondition(Self.placeholders(in: text) == binds.count, "one bound value per placeholder: \(text)")
        self.text = text
        self.binds = binds
    }

    /// The number of `?` in `text`, counted over its contiguous UTF-8 bytes (walking `String.UTF8View`
    /// index by index took 0.6 % of a TOTP verification's CPU).
    static func placeholders(in text: String) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            var count = 0
            for byte in bytes where byte == UInt8(ascii: "?") { count += 1 }
            return count
        }
    }

    public func serialize(to serializer: inout SQLSerializer) {
        var index = 0
        for (position, part) in text.split(separator: "?", omittingEmptySubsequences: false).enumerated() {
            if position > 0 {
                serializer.write(bind: binds[index])
                index += 1
            }
            serializer.write(String(part))
        }
    }
}

/// Runs an ``SQLStatement`` with SQLKit's fetch methods (`run()`, `first()`, `all()`).
public final class SQLStatementBuilder: SQLQueryBuilder, SQLQueryFetcher {
    public let query: any SQLExpression
    public let database: any SQLDatabase

    init(_ statement: SQLStatement, on database: any SQLDatabase) {
        query = statement
        self.database = database
    }
}

extension SQLDatabase {
    /// The statement `text` with `binds` for its `?` placeholders (see ``SQLStatement``).
    public func statement(_ text: String, _ binds: any Encodable & Sendable...) -> SQLStatementBuilder {
        SQLStatementBuilder(SQLStatement(text, binds), on: self)
    }
}
