import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The audit log in the admin API: `GET audit` (a page, filtered by type, subject and time, paged by
/// sequence), `GET audit/export` (JSONL, streamed), `GET audit/checkpoints`, `GET audit/key` and
/// `GET audit/verify` (the chain check of `tessera admin audit verify`, run by the server: ``AuditVerification``).
package struct AuditController<Context: TesseraContext> {
    package let database: any Database
    package let audit: any AuditLog
    package let publicKey: Curve25519.Signing.PublicKey

    package init(database: any Database, audit: any AuditLog, publicKey: Curve25519.Signing.PublicKey) {
        self.database = database
        self.audit = audit
        self.publicKey = publicKey
    }

    /// Rows per database read of the export.
    package static var exportPage: Int { 500 }

    package func addRoutes(to group: RouterGroup<Context>) {
        group.get("audit") { request, _ in
            let query = try Self.query(request, defaultLimit: 100)
            let audit = self.audit
            let (entries, head) = try await database.scan { sql in
                // The head first: every row up to it is committed, so a verifier compares like with like.
                let head = try await audit.head(in: sql)
                return (try await audit.entries(query, in: sql), head)
            }
            let next = entries.count == query.limit ? entries.last?.seq : nil
            return try Response.json(AuditPage(entries: entries, nextAfter: next, head: head))
        }
        group.get("audit/export") { request, _ in
            var query = try Self.query(request, defaultLimit: Self.exportPage)
            query.limit = Self.exportPage
            return Self.export(query, database: database, audit: audit)
        }
        group.get("audit/checkpoints") { _, _ in
            let audit = self.audit
            return try Response.json(AuditCheckpointList(checkpoints: try await database.scan { try await audit.checkpoints(in: $0) }))
        }
        group.get("audit/verify") { _, _ in
            try Response.json(try await AuditVerification.run(database: database, audit: audit, publicKey: publicKey, page: Self.exportPage))
        }
        group.get("audit/key") { _, _ in
            try Response.json(AuditPublicKey(keyId: AuditChain.keyId(of: publicKey), publicKey: publicKey.rawRepresentation.base64EncodedString()))
        }
    }

    /// Every matching row, one JSON object a line, read from the database a page at a time.
    package static func export(_ first: AuditQuery, database: any Database, audit: any AuditLog) -> Response {
        let body = ResponseBody { writer in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var query = first
            while true {
                let page = query
                let entries = try await database.scan { try await audit.entries(page, in: $0) }
                var buffer = ByteBuffer()
                for entry in entries {
                    buffer.writeBytes(try encoder.encode(entry))
                    buffer.writeInteger(UInt8(ascii: "\n"))
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
                guard entries.count == page.limit, let last = entries.last else { break }
                query.after = last.seq
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/jsonl", .cacheControl: "no-store"], body: body)
    }

    /// The filters of a listing or export: `after` (sequence), `since` (ms), `type`, `subject`, `limit`.
    package static func query(_ request: Request, defaultLimit: Int) throws -> AuditQuery {
        let parameters = request.uri.queryParameters
        var query = AuditQuery(limit: defaultLimit)
        if let text = parameters.get("after") {
            guard let value = Int64(text), value >= 0 else { throw AppError.invalidField("after", "after must be a sequence number (0 or more)") }
            query.after = value
        }
        if let text = parameters.get("since") {
            guard let value = Int64(text), value >= 0 else {
                throw AppError.invalidField("since", "since must be a time in milliseconds since 1970")
            }
            query.since = value
        }
        if let text = parameters.get("limit") {
            guard let value = Int(text), (1...1000).contains(value) else { throw AppError.invalidField("limit", "limit must be 1–1000") }
            query.limit = value
        }
        if let type = parameters.get("type") {
            guard (1...100).contains(type.count), type.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._".contains($0)) }) else {
                throw AppError.invalidField("type", "type must be an event type such as login.completed")
            }
            query.type = String(type)
        }
        if let subject = parameters.get("subject") {
            guard (1...200).contains(subject.count) else { throw AppError.invalidField("subject", "subject must be 1–200 characters") }
            query.subject = String(subject)
        }
        return query
    }
}
