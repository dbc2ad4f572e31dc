import Foundation

/// Told when the user becomes logged in or out (the seed's `VipasoDelegate`).
public protocol TesseraDelegate: AnyObject, Sendable {
    /// The authentication state changed: `true` once the session is bound to this device's key,
    /// `false` after ``TesseraClient/logout()`` or when the server answered 401 to a session call.
    func onAuthenticationStateChange(tessera: TesseraClient, authenticated: Bool)
}

/// Keeps the authentication state and hands every change, once, to the delegate and to every stream.
final class AuthenticationStateHub: @unchecked Sendable {
    private let lock = NSLock()
    private var authenticated: Bool
    private var continuations: [UUID: AsyncStream<Bool>.Continuation] = [:]
    private weak var delegate: (any TesseraDelegate)?

    init(authenticated: Bool) { self.authenticated = authenticated }

    var current: Bool { lock.withLock { authenticated } }

    var currentDelegate: (any TesseraDelegate)? {
        get { lock.withLock { delegate } }
        set { lock.withLock { delegate = newValue } }
    }

    /// A stream that starts with the current state and then yields each change.
    func stream() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream<Bool>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        lock.withLock {
            continuation.yield(authenticated)
            continuations[id] = continuation
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sets the state; tells the delegate and the streams only when it changed.
    func set(_ value: Bool, tessera: TesseraClient) {
        let (changed, delegate, continuations): (Bool, (any TesseraDelegate)?, [AsyncStream<Bool>.Continuation]) = lock.withLock {
            guard authenticated != value else { return (false, nil, []) }
            authenticated = value
            return (true, self.delegate, Array(self.continuations.values))
        }
        guard changed else { return }
        for continuation in continuations { continuation.yield(value) }
        delegate?.onAuthenticationStateChange(tessera: tessera, authenticated: value)
    }
}
