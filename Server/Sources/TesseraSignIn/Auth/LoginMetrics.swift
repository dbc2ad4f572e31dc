import TesseraCore

/// What authentication counts; the server's metrics registry implements it (``ServerMetrics``),
/// which the sign-in layer does not know.
package protocol LoginMetrics: Sendable {
    /// A login ended as `outcome`.
    func login(_ outcome: AuthOutcome)
    /// A node answered (or failed to) after `duration`.
    func nodeAttestation(nodeId: String, duration: Duration, failed: Bool)
    /// A spare node was asked because a selected one was slow.
    func spareNodeAsked()
}
