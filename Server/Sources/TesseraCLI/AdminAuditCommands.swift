import ArgumentParser
import Foundation
import TesseraCore
import TesseraServer

/// `tessera admin audit verify | export`: the audit log, read through the running server's admin API
/// and checked here, with no trust in the server's own answer.
struct AuditAdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "The tamper-evident audit log: verify its hash chain and signed checkpoints, or export it.",
        subcommands: [Verify.self, Export.self]
    )

    /// Rows asked per page.
    static let page = 1000

    /// Reads every row after `after` (filtered by `since`, ms), a page at a time, handing each page to `body`.
    /// - Returns: the head the first page reported.
    @discardableResult
    static func read(_ api: AdminAPI, after: Int64, since: Int64? = nil, _ body: ([AuditEntry]) throws -> Void) async throws -> AuditHead {
        var after = after
        var head: AuditHead?
        while true {
            var query = ["after": String(after), "limit": String(page)]
            if let since { query["since"] = String(since) }
            let result = try await api.get("audit", query: query, as: AuditPage.self)
            if head == nil { head = result.head }
            try body(result.entries)
            guard let next = result.nextAfter else { break }
            after = next
        }
        return head ?? AuditHead(seq: 0, hash: AuditChain.genesis)
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Fetch the whole log, recompute its hash chain locally and check every checkpoint's signature; name the first bad row.",
            discussion: """
                Prints OK with the number of rows and how far the signed checkpoints vouch, and exits 0, or names the first bad row (its \
                sequence number and what is wrong) and exits 1. --checkpoints FILE also checks the log against checkpoints kept outside the \
                database (the server's audit.checkpointFile): rows removed after them (a truncated log) are found.
                """
        )
        @Option(help: "Checkpoints kept outside the database (audit.checkpointFile: one JSON object a line).") var checkpoints: String?
        @OptionGroup var options: AdminOptions

        /// The checkpoints of a kept file (blank lines skipped; a line that is no checkpoint stops with its number).
        static func kept(_ path: String) throws -> [AuditCheckpoint] {
            guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read --checkpoints \(path)") }
            return try String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated().compactMap { index, line in
                guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
                guard let checkpoint = try? JSONDecoder().decode(AuditCheckpoint.self, from: Data(line.utf8)) else {
                    throw ValidationError("--checkpoints \(path): line \(index + 1) is not a checkpoint")
                }
                return checkpoint
            }
        }

        func run() async throws {
            let api = try await AdminAPI.connect(options)
            // The key and the checkpoints before the rows: every row they name is then among those read.
            let key = try await api.get("audit/key", as: AuditPublicKey.self)
            let kept = try self.checkpoints.map(Self.kept) ?? []
            let checkpoints = try await api.get("audit/checkpoints", as: AuditCheckpointList.self).checkpoints
            var verifier = AuditVerifier()
            let head = try await AuditAdminCommand.read(api, after: 0) { verifier.check($0) }
            if let problem = verifier.finish(head: head, checkpoints: checkpoints, publicKey: key) ?? verifier.finish(external: kept, publicKey: key) {
                throw CLIFailure(status: CLIFailure.refused, message: "audit log FAILED: \(problem.message)")
            }
            let keptText = self.checkpoints == nil ? "" : " and \(kept.count) kept outside the database"
            print("audit log OK: \(verifier.count) rows, \(checkpoints.count) signed checkpoints\(keptText) (key \(key.keyId))")
            let unvouched = Int64(verifier.count) - verifier.vouchedSeq
            print("vouched for by a signed checkpoint: rows 1–\(verifier.vouchedSeq)" + (unvouched > 0 ? "; the \(unvouched) newer rows are not yet" : ""))
        }
    }

    /// The export formats (one for now).
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jsonl
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the log's rows to standard output, one JSON object a line (each row as the admin API lists it).",
            discussion: "--since takes a time (ISO 8601, e.g. 2026-11-24T00:00:00Z) or a sequence number (rows from that one on)."
        )
        @Option(help: "Rows from this time (ISO 8601) or this sequence number on (default: all).") var since: String?
        @Option(help: "Output format: jsonl.") var format: Format = .jsonl
        @OptionGroup var options: AdminOptions

        /// `--since` as (after: sequence, since: ms).
        static func parseSince(_ text: String?) throws -> (after: Int64, since: Int64?) {
            guard let text else { return (0, nil) }
            if let seq = Int64(text) {
                guard seq >= 1 else { throw ValidationError("--since: a sequence number starts at 1") }
                return (seq - 1, nil)
            }
            let plain = ISO8601DateFormatter()
            let fractional = ISO8601DateFormatter()
            fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let date = plain.date(from: text) ?? fractional.date(from: text) else {
                throw ValidationError("--since must be an ISO 8601 time (2026-11-24T00:00:00Z) or a sequence number, not '\(text)'")
            }
            return (0, max(0, Int64((date.timeIntervalSince1970 * 1000).rounded())))
        }

        func validate() throws { _ = try Self.parseSince(since) }

        func run() async throws {
            let (after, since) = try Self.parseSince(since)
            let api = try await AdminAPI.connect(options)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try await AuditAdminCommand.read(api, after: after, since: since) { entries in
                var chunk = Data()
                for entry in entries {
                    chunk.append(try encoder.encode(entry))
                    chunk.append(0x0A)
                }
                FileHandle.standardOutput.write(chunk)
            }
        }
    }
}
