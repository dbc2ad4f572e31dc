import ArgumentParser
import Crypto
import Foundation
import Tessera
import TesseraAsyncHTTPClient

extension BenchCommand {
    /// `tessera-bench tokens`: mints tokens for the introspection bench through the public API only.
    /// Each of `count` devices signs up through the SDK (its sign-up grants a device-bound session:
    /// one `tss_…` token), then logs in once through the SDK's full node-quorum flow (one ES256 result
    /// token). Writes one token a line to each output file. Used by `bench/all.sh`.
    struct Tokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mint result tokens and session tokens (sign-ups and logins through the SDK) for the introspection bench."
        )
        @OptionGroup var load: LoadOptions
        @Option(help: "Tokens of each kind.") var count = 200
        @Option(help: "Output file for the result tokens (one a line).") var resultTokens: String
        @Option(help: "Output file for the session tokens (one a line).") var sessionTokens: String

        func run() async throws {
            let url = try load.url(), codes = load.codes(), load = self.load, count = self.count
            let stores = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bench-tokens-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: stores) }
            // Sign-ups, at most `concurrency` at a time; each client keeps its device in a store of its own.
            let clients = try await inBatches(count: count, width: load.concurrency) { index in
                let store = try FileKeyStore(directory: stores.appendingPathComponent("\(index)"))
                let client = TesseraClient(
                    configuration: .init(serverURL: url, clientKey: load.clientKey, bundleIdentifier: load.bundleId), keyStore: store
                )
                try await benchSignUp(
                    client, codes: codes, name: "\(load.prefix)-\(index)",
                    phone: "+45\(load.runNumber % 10)" + String(format: "%03d%07d", index / 10_000_000 % 1000, index % 10_000_000)
                )
                return (client, try Self.sessionToken(in: store.directory))
            }
            try (clients.map(\.1).joined(separator: "\n") + "\n").write(toFile: sessionTokens, atomically: true, encoding: .utf8)
            print("minted \(clients.count) session tokens")
            try await Task.sleep(for: .seconds(1))  // node sync runs right after each sign-up
            let results = try await inBatches(count: count, width: load.concurrency) { index in
                try await clients[index].0.authenticate(localAuthenticator: NoLocalAuthentication(), reason: "bench")
            }
            try (results.joined(separator: "\n") + "\n").write(toFile: resultTokens, atomically: true, encoding: .utf8)
            print("minted \(results.count) result tokens")
        }

        /// The session token a ``FileKeyStore`` keeps: `session.sealed` (AES-GCM, combined) under `session.key`.
        static func sessionToken(in directory: URL) throws -> String {
            struct Stored: Decodable { var token: String }
            guard let key = FileManager.default.contents(atPath: directory.appendingPathComponent("session.key").path),
                  let sealed = FileManager.default.contents(atPath: directory.appendingPathComponent("session.sealed").path)
            else { throw ValidationError("no session stored in \(directory.path)") }
            let json = try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: SymmetricKey(data: key))
            return try JSONDecoder().decode(Stored.self, from: json).token
        }
    }
}

/// Runs `body` for 0..<count with at most `width` calls in flight; results in index order.
func inBatches<T: Sendable>(count: Int, width: Int, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
    var results = [T?](repeating: nil, count: count)
    var next = 0
    try await withThrowingTaskGroup(of: (Int, T).self) { group in
        func add() {
            let index = next
            next += 1
            group.addTask { (index, try await body(index)) }
        }
        while next < min(width, count) { add() }
        while let (index, value) = try await group.next() {
            results[index] = value
            if next < count { add() }
        }
    }
    return results.map { $0! }
}
