/// The deadline of one SDK call in these tests. The SDK's default of 30 s is for an app on a phone; CI runs
/// the whole suite in parallel on two shared cores, where one call has taken over 30 s (a load average of 7).
/// Tests that check a timeout set a short one of their own.
extension Duration {
    static let sdkTestDeadline: Duration = .seconds(180)
}
