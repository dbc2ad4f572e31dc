import TesseraCore
import TesseraWebAuthn

/// Passkey sign-ins verified by the verifier nodes (issue 38): for a client whose policy says
/// `passkeyNodeVerification`, the server forwards the assertion it verified to a quorum of nodes, each of
/// which verifies it against its own record (key, user handle, RP ID, origins, counter) and the challenge's
/// freshness; without the quorum there is no sign-in (5004).
extension PasskeyService {
    /// An authentication challenge's first 8 bytes: the time it was made (ms, big-endian), so that a node can
    /// refuse a stale one without asking the server.
    package static func timed(_ now: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: now) >> (56 - 8 * UInt64($0))) }
    }

    /// Sends the nodes what they lack, after a registration or revocation committed (as a device's enrolment
    /// is delivered after its commit); a node that fails is retried by ``PasskeyNodes``' own loop.
    func syncNodes() async {
        await nodes?.sync()
    }

    /// Whether `client` requires node verification of passkey sign-ins.
    func requiresNodes(_ client: Client) async throws -> Bool {
        try await policies?.policy(clientId: client.id).passkeyNodeVerification ?? false
    }

    /// The nodes that verified the assertion, when the client requires them; empty otherwise. Fewer than the
    /// quorum: `passkey.failed` (`quorum_not_reached`) and 5004.
    func nodeVerification(
        client: Client, credential: PasskeyCredential, challenge: String, response: PasskeyJSON.AuthenticationResponse
    ) async throws -> [String] {
        guard try await requiresNodes(client) else { return [] }
        guard let nodes else {
            throw AppError.authQuorumNotReached(detail: "This client requires verifier nodes for passkeys, and this server has none")
        }
        let request = NodePasskeyAttestRequest(
            passkeyId: credential.id, challenge: challenge, clientDataJSON: response.response.clientDataJSON,
            authenticatorData: response.response.authenticatorData, signature: response.response.signature, userHandle: response.response.userHandle,
            requireUserVerification: settings.requireUserVerification
        )
        let outcome = try await nodes.attest(request)
        guard outcome.attested.count >= nodes.quorum.quorum else {
            try await failed("quorum_not_reached", client: client, userId: credential.userId, ceremony: .authentication)
            nodes.logger.warning("passkey node quorum not reached", metadata: [
                "passkey": .string(credential.id), "failures": .string(outcome.failures.joined(separator: "; ")),
            ])
            throw AppError.authQuorumNotReached(detail: "\(outcome.attested.count) of the \(nodes.quorum.quorum) node attestations needed for this passkey")
        }
        return outcome.attested
    }
}
