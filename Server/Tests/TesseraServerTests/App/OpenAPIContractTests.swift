import Foundation
import Testing
@testable import TesseraServer
import TesseraServerTestSupport

/// The OpenAPI document is the contract: every route the server has is in it, and every
/// operation in it is a route the server has.
@Suite("OpenAPI contract")
struct OpenAPIContractTests {
    @Test("routes and documented operations match exactly")
    func routesMatchDocument() async throws {
        try await withTestRuntime(.sqlite) { runtime in
            let document = try #require(try JSONSerialization.jsonObject(with: OpenAPIDocument.data) as? [String: Any])
            #expect(document["openapi"] as? String == "3.1.0")
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            var documented = Set<String>()
            for (path, item) in paths {
                for method in item.keys where ["get", "post", "put", "delete", "patch"].contains(method) {
                    documented.insert("\(method.uppercased()) \(path)")
                }
            }
            let routed = Set(runtime.makeRouter().routes.map { route -> String in
                let path = route.path.description
                    .split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
                return "\(route.method.rawValue) /\(path)"
            })
            #expect(routed == documented, "only routed: \(routed.subtracting(documented)); only documented: \(documented.subtracting(routed))")
        }
    }

    @Test("every change the admin API can make is audited under a stable admin.<object>.<action> name")
    func adminChangesHaveStableNames() async throws {
        try await withTestRuntime(.sqlite) { runtime in
            let changes = runtime.makeRouter().routes.compactMap { route -> String? in
                guard ["POST", "PUT", "PATCH", "DELETE"].contains(route.method.rawValue) else { return nil }
                let path = route.path.description.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                guard path.starts(with: ["v1", "admin"]) else { return nil }
                return "\(route.method.rawValue) " + path.dropFirst(2).joined(separator: "/")
            }
            #expect(changes.count > 20, "\(changes)")
            for change in changes.sorted() {
                let name = AdminAuditMiddleware<TesseraRequestContext>.actions[change]
                #expect(name != nil, "\(change) has no stable audit name")
                #expect(name?.wholeMatch(of: /admin\.[a-z]+\.[a-z_]+/) != nil, "\(change): \(name ?? "-")")
            }
        }
    }
}
