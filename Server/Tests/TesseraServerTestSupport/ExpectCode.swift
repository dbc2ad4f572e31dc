import Testing
import TesseraCore
@testable import TesseraServer

/// Expects `body` to fail with the server error `code`.
package func expectCode(
    _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected \(code), but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as AppError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
