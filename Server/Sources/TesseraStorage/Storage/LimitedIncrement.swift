import SQLKit

/// A rate counter's count inside a statement that its caller composes (PostgreSQL,
/// ``RateCounters/limitedIncrement(_:limit:now:window:)``): a key of one subject, counted only while below its
/// limit, which is what a refused request's rolled-back count comes to.
package struct LimitedIncrement: Sendable {
    /// A query of one boolean column `ok`: whether the key's count in the window is below the limit.
    package let isBelow: SQLQueryString
    /// Given the condition under which it counts, adds one while the count is below the limit and returns the new
    /// `count` (no row when it counted nothing: the limit was reached, even by a request that committed after the
    /// statement's read).
    package let increment: @Sendable (_ condition: SQLQueryString) -> SQLQueryString
}
