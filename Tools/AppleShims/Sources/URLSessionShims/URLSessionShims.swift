// Transcribed from Apple's Foundation documentation: `URLSession.bytes(for:delegate:)` and
// `URLSession.AsyncBytes`, which FoundationNetworking on Linux lacks. Imported only under
// TESSERA_APPLE_SHIMS (scripts/check-apple-adapters.sh), never in a real build.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    public struct AsyncBytes: AsyncSequence, Sendable {
        public typealias Element = UInt8
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            public mutating func next() async throws -> UInt8? { fatalError() }
        }
        public func makeAsyncIterator() -> Iterator { fatalError() }
        public var task: URLSessionDataTask { fatalError() }
    }

    public func bytes(for request: URLRequest, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (AsyncBytes, URLResponse) {
        fatalError()
    }
}
