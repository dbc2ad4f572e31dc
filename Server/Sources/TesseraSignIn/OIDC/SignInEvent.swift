import TesseraCore

/// One event of the hosted page's progress stream (`GET /oauth2/authorize/{id}/events`): where the
/// sign-in stands as the page shows it, and behind `verifying` the channel's node step. It carries no
/// time and nothing else that differs between a user who exists and one who does not answer.
package struct SignInEvent: Codable, Sendable, Equatable {
    package var status: OIDCService.Progress
    /// `SelectNodes`, `StartVerificationOfNodes` or `CompleteVerificationOfNodes` while `verifying`.
    package var step: AuthStatus?

    package init(status: OIDCService.Progress, step: AuthStatus? = nil) {
        self.status = status
        self.step = step
    }

    /// The page's view of a channel event.
    package init(_ event: AuthEvent) {
        switch (event.status, event.outcome) {
        case (.createChannel?, _), (nil, nil), (nil, .pending?): self.init(status: .waiting)
        case (let step?, _): self.init(status: .verifying, step: step)
        case (nil, .inProgress?): self.init(status: .verifying)
        case (nil, .completed?): self.init(status: .approved)
        case (nil, .declined?): self.init(status: .declined)
        case (nil, .expired?): self.init(status: .expired)
        case (nil, .cancelled?): self.init(status: .cancelled)
        case (nil, .failed?): self.init(status: event.code == ErrorCode.authNumberMismatch.rawValue ? .mismatch : .failed)
        }
    }

    /// The SSE event name: `status` while the sign-in goes on, `outcome` for the final one.
    package var name: String { status.isFinal ? "outcome" : "status" }
}
