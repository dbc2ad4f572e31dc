import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TesseraCore

/// RFC 9110 §9.3.2 on a live server: HEAD is answered as GET is, with its status and headers and no
/// content, and the connection stays usable (no stray body bytes in front of the next answer).
@Suite("HTTP: HEAD on a live server")
struct HeadRequestTests {
    @Test("HEAD gets GET's status, type and length without content; a GET on the same client follows; HEAD on a POST route is 405")
    func head() async throws {
        try await LiveServer.run(bundleId: "com.example.head") { _, _, url in
            let base = url.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            let client = HTTPClient(eventLoopGroupProvider: .singleton)   // keeps its connection alive between requests
            do {
                for path in ["/healthz", "/.well-known/openid-configuration", "/v1/nothing"] {
                    let get = try await client.execute(HTTPClientRequest(url: base + path), timeout: .seconds(30))
                    let getBody = try await get.body.collect(upTo: 1 << 20)
                    var request = HTTPClientRequest(url: base + path)
                    request.method = .HEAD
                    let head = try await client.execute(request, timeout: .seconds(30))
                    let headBody = try await head.body.collect(upTo: 1 << 20)
                    #expect(head.status == get.status, "\(path)")
                    #expect(head.headers.first(name: "content-type") == get.headers.first(name: "content-type"), "\(path)")
                    #expect(head.headers.first(name: "content-length") == String(getBody.readableBytes), "\(path)")
                    #expect(headBody.readableBytes == 0, "\(path)")
                    #expect(getBody.readableBytes > 0, "\(path)")
                    // The same client (and connection) answers the next GET whole.
                    let again = try await client.execute(HTTPClientRequest(url: base + path), timeout: .seconds(30))
                    #expect(try await again.body.collect(upTo: 1 << 20).readableBytes == getBody.readableBytes, "\(path)")
                }
                var post = HTTPClientRequest(url: base + "/v1/otp/send")
                post.method = .HEAD
                let refused = try await client.execute(post, timeout: .seconds(30))
                #expect(refused.status == .methodNotAllowed)
                #expect(refused.headers.first(name: "allow") == "POST")
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }
}
