import AsyncHTTPClient
import Foundation
import Logging

/// One POST of an outbox delivery to a relying party's endpoint (a back-channel logout, a CIBA notification or
/// callback), and what became of it.
extension DeliveryFate {
    /// Sends `request` and reads the answer: 2xx is delivered; a 4xx other than 408 and 429 is refused for good (the
    /// same request would be refused again: Back-Channel Logout §2.8's 400, a CIBA receiver's 401); any other answer,
    /// or no answer, is retried, after the peer's `Retry-After` when it gives one. `what` names the delivery in the
    /// log lines ("back-channel logout", "CIBA ping").
    static func post(
        _ request: HTTPClientRequest, through httpClient: HTTPClient, timeout: Duration, what: String, attempt: Int, logger: Logger
    ) async -> DeliveryFate {
        do {
            let response = try await httpClient.execute(request, timeout: .milliseconds(timeout.millis))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            let code = Int(response.status.code)
            if (200..<300).contains(code) {
                logger.info("\(what) delivered", metadata: ["attempt": .stringConvertible(attempt)])
                return .delivered
            }
            logger.notice("\(what) refused", metadata: ["attempt": .stringConvertible(attempt), "status": .stringConvertible(code)])
            if (400..<500).contains(code), code != 408, code != 429 { return .refused(error: "HTTP \(code)", status: code) }
            let retryAfter = response.headers.first(name: "retry-after").flatMap { Int64($0) }.map { Duration.seconds($0) }
            return .retry(error: "HTTP \(code)", status: code, retryAfter: retryAfter)
        } catch {
            logger.notice("\(what) failed", metadata: ["attempt": .stringConvertible(attempt), "error": .string(String(describing: error))])
            return .retry(error: String(describing: error))
        }
    }
}
