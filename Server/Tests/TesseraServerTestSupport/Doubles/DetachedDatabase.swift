import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
@testable import TesseraServer

/// The ``Database`` of tests on in-memory doubles, which ignore the handle they are given: its
/// handle (``DetachedSQL``) fails every statement, so a double that ran SQL would be caught.
package struct DetachedDatabase: Database {
    package init() {}

    package var kind: DatabaseKind { .sqlite }

    package func withSQL<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await body(DetachedSQL())
    }

    package func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await body(DetachedSQL())
    }

    package func close() async {}
}

/// A SQL handle connected to nothing: every statement fails.
package struct DetachedSQL: SQLDatabase {
    package init() {}

    package struct Detached: Error, CustomStringConvertible {
        package var description: String { "a statement ran on the detached handle of an in-memory test" }
    }

    package var logger: Logger { TestDatabase.logger }
    package var eventLoop: any EventLoop { MultiThreadedEventLoopGroup.singleton.any() }
    package var dialect: any SQLDialect { SQLiteDialect() }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeFailedFuture(Detached())
    }
}
