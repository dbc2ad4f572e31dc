import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit

/// SQLKit over one ``SQLiteDirectConnection``: queries are serialised with SQLite's dialect and
/// their binds encoded as SQLiteKit does, then run in the calling task.
struct SQLiteDirectSQL: SQLDatabase {
    let connection: SQLiteDirectConnection
    let logger: Logger
    /// Refuse statements that would write (a ``Database/read(_:)`` body on the writer connection).
    var readOnly = false
    var eventLoop: any EventLoop { MultiThreadedEventLoopGroup.singleton.any() }
    var dialect: any SQLDialect { SQLiteDialect() }
    var queryLogLevel: Logger.Level? { nil }
    private static let encoder = SQLiteDataEncoder()
    private static let decoder = SQLiteDataDecoder()

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        promise.completeWithTask { try await execute(sql: query, onRow) }
        return promise.futureResult
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let sql: String, rawBinds: [any Encodable & Sendable]
        if let statement = query as? SQLStatement {
            (sql, rawBinds) = (statement.text, statement.binds)  // SQLite's placeholder is `?` already
        } else {
            (sql, rawBinds) = serialize(query)
        }
        let binds = try rawBinds.map { try Self.sqliteData($0) }
        let result = try await connection.run(sql, binds, readOnly: readOnly)
        guard !result.rows.isEmpty else { return }
        let index = SQLiteDirectRow.Index(result.columns)
        for values in result.rows { onRow(SQLiteDirectRow(index: index, values: values, decoder: Self.decoder)) }
    }

    /// A bind's SQLite value: the common types directly, the rest as SQLiteKit encodes them. The same
    /// values as SQLiteKit's encoder gives (its `SQLiteDataConvertible` conformances), without its
    /// conformance lookup per bind, which was about 1 % of a TOTP verification's CPU.
    static func sqliteData(_ value: any Encodable) throws -> SQLiteData {
        switch value {
        case let text as String: .text(text)
        case let number as Int: .integer(number)
        case let number as Int64: .integer(Int(number))
        case let flag as Bool: .integer(flag ? 1 : 0)
        default: try encoder.encode(value)
        }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }
}

/// One row of a ``SQLiteDirectSQL`` result, read through SQLKit's `SQLRow`.
struct SQLiteDirectRow: SQLRow {
    /// Column names and their positions, shared by the rows of one result.
    final class Index: Sendable {
        let names: [String]
        let positions: [String: Int]

        init(_ names: [String]) {
            self.names = names
            positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    let index: Index
    let values: [SQLiteData]
    let decoder: SQLiteDataDecoder

    var allColumns: [String] { index.names }

    func contains(column: String) -> Bool { index.positions[column] != nil }

    func decodeNil(column: String) throws -> Bool {
        guard let position = index.positions[column] else { return true }
        return values[position] == .null
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let position = index.positions[column] else {
            throw DecodingError.keyNotFound(
                SQLiteDirectColumn(column), .init(codingPath: [], debugDescription: "No column \(column) in the result")
            )
        }
        // Text as `String` and integers as `Int`, the common cases, without the decoder's generic
        // machinery (the same values it gives for them); anything else goes to the decoder.
        switch values[position] {
        case .text(let text) where D.self == String.self: return unsafeBitCast(text, to: D.self)
        case .integer(let number) where D.self == Int.self: return unsafeBitCast(number, to: D.self)
        case let value: return try decoder.decode(D.self, from: value)
        }
    }
}

/// A column name as a coding key, for the error of a missing column.
private struct SQLiteDirectColumn: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
