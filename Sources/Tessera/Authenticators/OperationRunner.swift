/// What the seed's operations (``Registration``, ``Authentication``) share: the callback form of
/// `execute()`, and a failure turned into an ``OperationError`` and logged once.
enum OperationRunner {
    /// Checks the parts with `validate`, then runs `body` in a background task and reports its outcome
    /// to exactly one of `onSuccess` and `onError`. A missing part goes to `onError`, or to the client's
    /// log when `onError` itself is missing (nothing else can be called then).
    static func execute<Result: Sendable>(
        _ name: String, client: TesseraClient,
        onSuccess: (@Sendable (Result) -> Void)?, onError: (@Sendable (OperationError) -> Void)?,
        validate: () throws(OperationError) -> Void,
        body: @escaping @Sendable () async throws(OperationError) -> Result
    ) {
        do throws(OperationError) {
            try validate()
        } catch {
            client.log?("✗ \(name): \(error.description)")
            if let onError { Task { onError(error) } }
            return
        }
        guard let onSuccess, let onError else { return }
        Task {
            do throws(OperationError) {
                onSuccess(try await body())
            } catch {
                onError(error)
            }
        }
    }

    /// Runs `body`; any error it throws becomes an ``OperationError``, logged as the failure of `name`.
    static func run<Result>(_ name: String, client: TesseraClient, _ body: () async throws -> Result) async throws(OperationError) -> Result {
        do {
            return try await body()
        } catch {
            let failure = OperationError(error)
            client.log?("✗ \(name): \(failure.description)")
            throw failure
        }
    }
}
