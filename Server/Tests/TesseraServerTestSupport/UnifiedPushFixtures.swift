import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import TesseraCore
@testable import TesseraServer

/// UnifiedPush fixtures for the server tests: a scripted loopback endpoint and a user whose device registered it.
package enum UnifiedPushFixtures {
    /// A UnifiedPush endpoint on 127.0.0.1: `POST /up/{id}` answers the id's scripted statuses first
    /// (`503`, `429@120` adds `Retry-After: 120`), then 201, and records every request.
    package final class Endpoint: Sendable {
        package struct Received: Sendable {
            package var id: String
            package var status: Int
            package var headers: HTTPFields
            package var body: Data
        }

        private let script: Mutex<[String: [String]]>
        private let log = Mutex<[Received]>([])

        package init(script: [String: [String]]) { self.script = Mutex(script) }

        package var received: [Received] { log.withLock { $0 } }

        package func router() -> Router<BasicRequestContext> {
            let router = Router()
            router.post("up/{id}") { request, context -> Response in
                let id = try context.parameters.require("id")
                let body = try await request.body.collect(upTo: 65_536)
                let next = self.script.withLock { script -> String in
                    guard var statuses = script[id], !statuses.isEmpty else { return "201" }
                    let first = statuses.removeFirst()
                    script[id] = statuses
                    return first
                }
                let parts = next.split(separator: "@")
                let status = Int(parts[0]) ?? 500
                self.log.withLock { $0.append(Received(id: id, status: status, headers: request.headers, body: Data(buffer: body))) }
                var headers = HTTPFields()
                if parts.count == 2, let name = HTTPField.Name("Retry-After") { headers[name] = String(parts[1]) }
                return Response(status: HTTPResponse.Status(code: status), headers: headers)
            }
            return router
        }
    }

    /// Runs `body` with an endpoint listening on 127.0.0.1 and its base URL (`http://127.0.0.1:PORT/up/`).
    package static func withEndpoint(script: [String: [String]] = [:], _ body: @escaping @Sendable (Endpoint, String) async throws -> Void) async throws {
        let endpoint = Endpoint(script: script)
        let app = Application(router: endpoint.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: TestDatabase.logger)
        try await app.test(.live) { http in
            try await body(endpoint, "http://127.0.0.1:\(try #require(http.port))/up/")
        }
    }

    package static let settings = PushSettingsUpdate(unifiedpush: UnifiedPushSettingsUpdate(allowedEndpoints: ["http://127.0.0.1:"]))

    /// A client with UnifiedPush settings and a user whose device registered `endpoint`.
    package static func fixture(_ runtime: TesseraRuntime, endpoint: String, name: String = "alice") async throws -> PushFixtures.Fixture {
        let fixture = try await PushFixtures.fixture(runtime, settings: Self.settings, name: name)
        try await SQLDeviceRepository(database: runtime.database).setPushToken(deviceId: fixture.deviceId, token: endpoint, platform: .unifiedpush, at: runtime.clock.now())
        return fixture
    }
}
