/// The verifier nodes an authentication may ask, and what it tells them back about their health.
/// ``NodeDirectory`` is the production source; tests give nodes they can hold back.
package protocol AttestingNodes: Sendable {
    /// Up to `count` nodes, healthy ones first.
    func select(_ count: Int) async throws -> [NodeDirectory.Node]
    func markHealthy(_ id: String)
    func markFailed(_ id: String)
}

extension NodeDirectory: AttestingNodes {}
