import SQLKit

/// One owner's write of its own table, handed to another owner that runs it inside a statement of its own
/// composing (on PostgreSQL, as a data-modifying CTE): the composer says when the write happens (a condition over
/// its CTEs), the owner what it writes. A request whose every step is such a write commits in one statement, one
/// round trip, instead of a transaction of one statement per owner (issue 40: on PostgreSQL each statement cost
/// the server more than the row it wrote).
package struct ComposedWrite: Sendable {
    /// The write, given the condition (SQL over the composing statement's CTEs) under which it takes place.
    package let statement: @Sendable (_ condition: SQLQueryString) -> SQLQueryString
    /// What the owner does once the composed statement committed (wakes the worker that reads the rows).
    package let committed: @Sendable () -> Void

    package init(
        statement: @escaping @Sendable (_ condition: SQLQueryString) -> SQLQueryString,
        committed: @escaping @Sendable () -> Void = {}
    ) {
        self.statement = statement
        self.committed = committed
    }
}
