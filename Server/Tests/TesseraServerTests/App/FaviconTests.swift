import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TesseraServer
import TesseraServerTestSupport

/// The icon every page Tessera serves (the console, the hosted sign-in page) makes the browser ask for.
@Suite("Favicon")
struct FaviconTests {
    @Test("GET /favicon.ico answers a 16×16 icon, cacheable for a day; HEAD too; neither is logged as refused")
    func favicon() async throws {
        let log = CapturedLog()
        try await withTestRuntime(.sqlite) { runtime in
            let app = Application(router: runtime.makeRouter(), logger: log.logger)
            try await app.test(.router) { http in
                try await http.run(uri: "/favicon.ico", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "image/x-icon")
                    #expect(response.headers[.cacheControl] == "public, max-age=86400")
                    let bytes = Array(response.body.readableBytesView)
                    // An ICO header (reserved 0, type 1, one image) of a 16×16 image holding a PNG.
                    #expect(bytes.prefix(6) == [0, 0, 1, 0, 1, 0])
                    #expect(bytes[6] == 16 && bytes[7] == 16)
                    #expect(bytes.dropFirst(22).prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
                    #expect(bytes == Array(Favicon.data))
                }
                try await http.run(uri: "/favicon.ico", method: .head) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "image/x-icon")
                }
            }
        }
        #expect(!log.text.contains("request refused"), "\(log.text)")
    }
}
