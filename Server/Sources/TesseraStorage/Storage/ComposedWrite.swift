import SQLKit

/// One owner's write of its own table for a batch of requests, handed to another owner that runs it inside a
/// statement of its own composing (on PostgreSQL, as a data-modifying CTE): the composer says which of the batch's
/// requests it writes for, the owner what it writes. Requests whose every step is such a write commit in one
/// statement, one round trip for many of them, instead of a transaction of one statement per owner and request
/// (issue 40: on PostgreSQL each statement cost more than the rows it wrote).
package struct ComposedWrite: Sendable {
    /// The write, given `selected`: SQL of the set of the batch's positions (1-based, in the batch's order) that it
    /// writes for, such as `(SELECT ord FROM opened)`.
    package let statement: @Sendable (_ selected: SQLQueryString) -> SQLQueryString
    /// What the owner does once the composed statement committed with a row written (wakes the worker that reads them).
    package let committed: @Sendable () -> Void

    package init(
        statement: @escaping @Sendable (_ selected: SQLQueryString) -> SQLQueryString,
        committed: @escaping @Sendable () -> Void = {}
    ) {
        self.statement = statement
        self.committed = committed
    }
}
