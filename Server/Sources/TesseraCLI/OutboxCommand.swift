import ArgumentParser
import Foundation
import TesseraCore

struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox", abstract: "Show messages delivered to the development file outbox."
    )

    @Option(help: "Data directory.") var dataDir = "./.tessera"
    @Option(help: "Only messages to this recipient.") var to: String?
    @Option(help: "Show at most this many (newest).") var limit = 20
    @Flag(help: "Print only the newest code (six digits) found.") var code = false
    @Flag(help: "Print the messages as JSON.") var json = false

    func run() async throws {
        let outbox = OutboxFile(dataDirectory: dataDir), path = outbox.path
        guard FileManager.default.fileExists(atPath: dataDir) else {
            throw CLIFailure.local("no data directory \(dataDir) (give the server's --data-dir)")
        }
        var entries = try outbox.entries()
        if let to { entries = entries.filter { $0.to == to.lowercased() || $0.to == to } }
        if code {
            guard let found = entries.last?.code else {
                throw CLIFailure.local("no code found in \(path)")
            }
            print(found)
            return
        }
        if json { printJSON(Array(entries.suffix(limit))); return }
        if entries.isEmpty { print("(no messages in \(path))") }
        for entry in entries.suffix(limit) {
            print("── \(entry.deliveredAt)  \(entry.channel) to \(entry.to)")
            if !entry.subject.isEmpty { print("Subject: \(entry.subject)") }
            print(entry.body.trimmingCharacters(in: .newlines))
        }
    }
}
