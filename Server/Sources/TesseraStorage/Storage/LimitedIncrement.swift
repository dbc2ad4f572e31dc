import SQLKit

/// Rate counters' counts inside a statement that their caller composes for a batch of requests (PostgreSQL,
/// ``RateCounters/limitedIncrement(_:limit:now:window:)``): keys of one subject each (distinct in the batch), counted
/// only while below the limit, which is what a refused request's rolled-back count comes to.
package struct LimitedIncrement: Sendable {
    /// A query of the columns `ord` (the request's position in the batch, 1-based) and `ok`: whether its key's
    /// count in the window is below the limit.
    package let isBelow: SQLQueryString
    /// Given `selected` (SQL of a set of positions), adds one to each of their keys while below the limit and returns
    /// the `counter_key` of each key counted (none for a key at its limit, even one reached by a request that
    /// committed after the statement's read).
    package let increment: @Sendable (_ selected: SQLQueryString) -> SQLQueryString
}
