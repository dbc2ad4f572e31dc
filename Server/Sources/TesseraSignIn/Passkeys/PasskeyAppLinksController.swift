import Foundation
import Hummingbird
import TesseraCore

/// The association files that let the clients' apps use the server's passkeys, built from every enabled
/// client's app links: `GET /.well-known/apple-app-site-association` (Apple's associated domains,
/// `webcredentials`) and `GET /.well-known/assetlinks.json` (Android's Digital Asset Links). Both JSON, public,
/// cacheable for an hour (Apple's CDN fetches the first).
package struct PasskeyAppLinksController<Context: TesseraContext> {
    package let links: PasskeyAppLinksService

    package init(links: PasskeyAppLinksService) {
        self.links = links
    }

    package func addRoutes(to router: Router<Context>) {
        router.get(".well-known/apple-app-site-association") { _, _ in
            Self.document(try await links.appleAssociation())
        }
        router.get(".well-known/assetlinks.json") { _, _ in
            Self.document(try await links.assetLinks())
        }
    }

    static func document(_ body: Data) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(bytes: body))
        )
    }
}
