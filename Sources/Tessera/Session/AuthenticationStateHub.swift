import Foundation
import Synchronization

/// Told when the user becomes logged in or out (the seed's `VipasoDelegate`).
public protocol TesseraDelegate: AnyObject, Sendable {
    /// The authentication state changed: `true` once the session is bound to this device's key,
    /// `false` after ``TesseraClient/logout()`` or when the server answered 401 to a session call.
    func onAuthenticationStateChange(tessera: any TesseraSDKProtocol, authenticated: Bool)
}

/// Keeps the authentication state and hands every change, once, to the delegate and to every stream.
final class AuthenticationStateHub: Sendable {
    private struct State {
        var authenticated: Bool
        var continuations: [UUID: AsyncStream<Bool>.Continuation] = [:]
        weak var delegate: (any TesseraDelegate)?
    }

    private let state: Mutex<State>

    init(authenticated: Bool) { state = Mutex(State(authenticated: authenticated)) }

    var current: Bool { state.withLock { $0.authenticated } }

    var currentDelegate: (any TesseraDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// A stream that starts with the current state and then yields each change.
    func stream() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream<Bool>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        state.withLock { state in
            continuation.yield(state.authenticated)
            state.continuations[id] = continuation
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sets the state; tells the delegate and the streams only when it changed.
    func set(_ value: Bool, tessera: TesseraClient) {
        let (changed, delegate, continuations): (Bool, (any TesseraDelegate)?, [AsyncStream<Bool>.Continuation]) = state.withLock { state in
            guard state.authenticated != value else { return (false, nil, []) }
            state.authenticated = value
            return (true, state.delegate, Array(state.continuations.values))
        }
        guard changed else { return }
        for continuation in continuations { continuation.yield(value) }
        delegate?.onAuthenticationStateChange(tessera: tessera, authenticated: value)
    }
}
