import Foundation
import Hummingbird
import TesseraHTTPKit

/// The request context of a verifier node: a request id for problem answers and the signer the
/// signature middleware verified (the server's node-control key).
struct NodeRequestContext: ProblemContext {
    var coreContext: CoreRequestContextStorage
    var signer: DeviceSigningKey<Void>?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        signer = nil
    }
}
