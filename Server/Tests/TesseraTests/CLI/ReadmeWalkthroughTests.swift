import AsyncHTTPClient
import Foundation
import Testing
import TesseraTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The README's walk-through as a newcomer runs it: every command of the fenced blocks marked
/// `<!-- walkthrough -->`, in order, with bash, in a new empty directory, `tessera` on `PATH` as the
/// README's `export PATH=…` line puts it there. The placeholders (`<client key printed at first
/// start>`, …) are filled from what earlier commands printed, as the reader does. One change only: the
/// server listens on a free port instead of 8080 (`TESSERA_PORT`, and `127.0.0.1:8080` in the
/// commands), so that the test never depends on, or disturbs, a server someone runs on 8080.
///
/// Every command must match exactly one of the steps below, which checks its exit status and output,
/// and every step must be used once: a command edited into something broken, a new command nobody
/// checks, or a step the README dropped fails the test.
@Suite("README: the walk-through runs as written")
struct ReadmeWalkthroughTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()  // CLI
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let marker = "<!-- walkthrough -->"

    /// The README's text.
    static func readme() throws -> String {
        try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The commands of the marked blocks, in order: continuation lines joined, blank lines and
    /// comment lines left out.
    static func walkthroughCommands(_ text: String) throws -> [String] {
        var commands: [String] = []
        var lines = text.components(separatedBy: "\n")[...]
        var blocks = 0
        while let index = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == marker }) {
            lines = lines[(index + 1)...]
            guard let fence = lines.firstIndex(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }),
                  lines[fence].hasPrefix("```")
            else { throw WalkthroughError("a \(marker) marker not followed by a fenced block") }
            lines = lines[(fence + 1)...]
            guard let end = lines.firstIndex(where: { $0.hasPrefix("```") }) else { throw WalkthroughError("an unclosed walk-through block") }
            var pending = ""
            for line in lines[..<end] {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if pending.isEmpty, trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                if trimmed.hasSuffix("\\") {
                    pending += trimmed.dropLast() + " "
                } else {
                    commands.append(pending + trimmed)
                    pending = ""
                }
            }
            guard pending.isEmpty else { throw WalkthroughError("a walk-through block ends in a continuation line") }
            lines = lines[(end + 1)...]
            blocks += 1
        }
        guard blocks > 0 else { throw WalkthroughError("README.md has no \(marker) block") }
        return commands
    }

    struct WalkthroughError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// What the commands have printed so far, by the placeholder that stands for it.
    struct Values: Sendable {
        var placeholders: [String: String] = [:]
        var userKey: String?
    }

    /// One command of the walk-through and what it must print.
    struct Step: Sendable {
        let name: String
        let matches: @Sendable (String) -> Bool
        let check: @Sendable (_ command: String, _ status: Int32, _ output: String, _ values: inout Values) throws -> Void
        /// An event to wait for before the command runs (what a reader waits for without noticing).
        var before: (@Sendable (_ directory: String) async -> Bool)?
    }

    static func json(_ output: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any]
    }

    static func isJWT(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } }
    }

    static let steps: [Step] = [
        Step(name: "curl …/v1/otp/send", matches: { $0.hasPrefix("curl ") && $0.contains("/v1/otp/send") }) { _, status, output, _ in
            let answer = try #require(json(output), "the send did not answer JSON: \(output)")
            #expect(status == 0 && answer["rtCode"] as? Int == 0 && answer["expiresIn"] as? Int != nil, "\(output)")
        },
        Step(
            name: "tessera outbox --code", matches: { $0.hasPrefix("tessera outbox") },
            check: { _, status, output, values in
                let code = output.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(status == 0 && code.count == 6 && code.allSatisfy(\.isNumber), "\(output)")
                values.placeholders["code printed by tessera outbox --code"] = code
            },
            // The courier writes the message right after the send's commit; a reader is slower than that.
            before: { directory in
                await eventually {
                    ((try? String(contentsOfFile: directory + "/.tessera/outbox.jsonl", encoding: .utf8)) ?? "").contains("\n")
                }
            }
        ),
        Step(name: "curl …/v1/otp/verify", matches: { $0.hasPrefix("curl ") && $0.contains("/v1/otp/verify") }) { _, status, output, _ in
            let answer = try #require(json(output), "the verify did not answer JSON: \(output)")
            #expect(status == 0 && answer["rtCode"] as? Int == 0, "\(output)")
            #expect((answer["disposeToken"] as? String)?.isEmpty == false, "no disposeToken: \(output)")
        },
        Step(name: "tessera device signup", matches: { $0.hasPrefix("tessera device signup") }) { command, status, output, values in
            #expect(status == 0 && output.contains("signed up: device dev_"), "\(output)")
            values.userKey = try #require(command.firstMatch(of: /--user-key\s+"?([^"\s]+)/)).1.description
        },
        Step(name: "tessera device login", matches: { $0.hasPrefix("tessera device login") }) { _, status, output, _ in
            #expect(status == 0, "\(output)")
            let lines = output.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let token = lines.firstIndex(of: "authenticated; result token:").flatMap { lines.indices.contains($0 + 1) ? lines[$0 + 1] : nil }
            #expect(token.map(isJWT) == true, "no result token: \(output)")
            for status in ["CreateChannel", "SelectNodes", "StartVerificationOfNodes", "CompleteVerificationOfNodes"] {
                #expect(output.contains(status), "\(status) not printed: \(output)")
            }
        },
        Step(name: "tessera rp authenticate … &", matches: { $0.hasPrefix("tessera rp authenticate") && $0.hasSuffix("&") }) {
            _, status, output, values in
            #expect(status == 0 && output.contains("result token verified with the server's JWKS"), "\(output)")
            let user = try #require(values.userKey, "the relying party asks for a user the walk-through signed up")
            #expect(output.contains("\"sub\" : \"\(user)\""), "\(output)")
        },
        Step(name: "tessera device approve", matches: { $0.hasPrefix("tessera device approve") }) { _, status, output, _ in
            #expect(status == 0 && output.contains("request from") && output.contains("authenticated; result token:"), "\(output)")
        },
        Step(name: "tessera admin user list", matches: { $0.hasPrefix("tessera admin user list") }) { _, status, output, values in
            let user = try #require(values.userKey)
            #expect(status == 0 && output.contains(user), "\(output)")
        },
    ]

    /// `<…>` in a command, filled from `values`; a placeholder the test does not know, or one whose value
    /// no earlier command printed, is an error naming it.
    static func fill(_ command: String, _ values: Values) throws -> String {
        var filled = "", rest = command[...]
        while let match = rest.firstMatch(of: /<([^<>]+)>/) {
            let name = String(match.1)
            guard let value = values.placeholders[name] else {
                throw WalkthroughError("placeholder <\(name)> in `\(command)`: not printed by an earlier command the test knows")
            }
            filled += rest[..<match.range.lowerBound] + value
            rest = rest[match.range.upperBound...]
        }
        return filled + rest
    }

    /// The first-start values `tessera serve` printed, by the placeholder the README uses for each.
    static func firstStart(_ output: String) -> [String: String] {
        var found: [String: String] = [:]
        for (label, placeholder) in [
            ("admin token:", "admin token printed at first start"), ("client key:", "client key printed at first start"),
            ("client secret:", "client secret printed at first start"),
        ] {
            for line in output.components(separatedBy: "\n") {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix(label) { found[placeholder] = trimmed.dropFirst(label.count).trimmingCharacters(in: .whitespaces) }
            }
        }
        return found
    }

    @Test("every command of the walk-through, in an empty directory, does what the README says")
    func walkthrough() async throws {
        let text = try Self.readme()
        let commands = try Self.walkthroughCommands(text)

        // The README's own line puts `tessera` on PATH (run in the repository's root, as it says).
        let exportLine = try #require(
            text.components(separatedBy: "\n").first { $0.hasPrefix("export PATH=") && $0.contains("Server/.build/debug") },
            "the README's `export PATH=…Server/.build/debug…` line"
        )
        let located = try await ChildProcess.run("/bin/bash", ["-c", "\(exportLine) && command -v tessera && printf '%s' \"$PATH\""], directory: Self.root.path)
        let locatedLines = located.output.components(separatedBy: "\n")
        try #require(located.status == 0 && locatedLines.count == 2, "`\(exportLine)` puts no tessera on PATH (build it first): \(located.output)")
        let tesseraPath = locatedLines[0], path = locatedLines[1]
        #expect(tesseraPath == Self.root.path + "/Server/.build/debug/tessera", "tessera found at \(tesseraPath)")
        _ = try TestRequirements.program("curl", for: "the README's API calls", debianPackage: "curl")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-walkthrough-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try NodeQuorumEndToEndTests.freePort()
        var environment = ["PATH": path, "HOME": directory, "LANG": "C.UTF-8", "TESSERA_PORT": "\(port)"]
        if let tmp = ProcessInfo.processInfo.environment["TMPDIR"] { environment["TMPDIR"] = tmp }
        let address = { (command: String) in
            command.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)").replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(port)")
        }

        var values = Values()
        var used = Set<String>()
        var prelude: [String] = []  // the assignments so far, as the reader's shell keeps them
        var server: ChildProcess?
        var background: [(step: Step, command: String, process: ChildProcess)] = []
        let serverLog = directory + ".serve.log"
        defer {
            // A failed step leaves the programs running: ended here (the embedded nodes follow their server).
            for job in background { job.process.signal(SIGKILL) }
            server?.signal(SIGKILL)
            try? FileManager.default.removeItem(atPath: serverLog)
        }
        func serverOutput() -> String { (try? String(contentsOfFile: serverLog, encoding: .utf8)) ?? "" }

        for raw in commands {
            if raw == "tessera serve" || raw.hasPrefix("tessera serve ") {
                // The first terminal: the server in the foreground, until the test ends it (Ctrl-C's SIGINT, or SIGTERM).
                try #require(server == nil, "the walk-through starts a second server")
                let started = try ChildProcess("/bin/bash", ["-c", "exec " + address(raw)], environment: environment, directory: directory, stdout: .file(serverLog))
                server = started
                let up = await eventually {
                    guard started.isRunning,
                          let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"), timeout: .seconds(5))
                    else { return !started.isRunning }
                    return response.status == .ok
                }
                try #require(up && started.isRunning, "`\(raw)` did not come up: \(serverOutput().suffix(3000))")
                let printed = Self.firstStart(serverOutput())
                #expect(printed.count == 3 && printed.values.allSatisfy { !$0.isEmpty }, "first start printed: \(serverOutput().prefix(2000))")
                values.placeholders.merge(printed) { $1 }
                #expect(FileManager.default.fileExists(atPath: directory + "/.tessera"), "no ./.tessera in the directory serve started in")
                used.insert("tessera serve")
                continue
            }
            let command = address(try Self.fill(raw, values))
            if raw.firstMatch(of: /^[A-Za-z_][A-Za-z0-9_]*=/) != nil {
                #expect(!raw.contains("$("), "an assignment the reader's shell would run again: `\(raw)`")
                prelude.append(command)
                let result = try await ChildProcess.run("/bin/bash", ["-c", prelude.joined(separator: "\n")], environment: environment, directory: directory, timeout: 60)
                #expect(result.status == 0, "`\(raw)`: \(result.output)")
                continue
            }
            if raw == "wait" {
                for job in background {
                    let process = job.process
                    let (status, output) = await ChildProcess.onOwnThread {
                        let output = String(decoding: ChildProcess.readAll(process.output!), as: UTF8.self)
                        return (process.waitUntilExit(), output)
                    }
                    try job.step.check(job.command, status, output, &values)
                }
                background = []
                used.insert("wait")
                continue
            }
            let matching = Self.steps.filter { $0.matches(raw) }
            try #require(matching.count == 1, "`\(raw)` matches \(matching.map(\.name)) of the steps this test knows: add it to ReadmeWalkthroughTests.steps")
            let step = matching[0]
            try #require(!used.contains(step.name), "`\(raw)` is a second \(step.name)")
            used.insert(step.name)
            if let before = step.before {
                let happened = await before(directory)
                #expect(happened, "before `\(raw)`: the event it waits for did not come")
            }
            let script = (prelude + [command]).joined(separator: "\n")
            if raw.hasSuffix("&") {
                // A job in the background (`&`) until `wait`: output and status are checked then.
                let job = try ChildProcess(
                    "/bin/bash", ["-c", (prelude + [String(command.dropLast()).trimmingCharacters(in: .whitespaces)]).joined(separator: "\n")],
                    environment: environment, directory: directory, stdout: .pipe
                )
                background.append((step, command, job))
                continue
            }
            let result = try await ChildProcess.run("/bin/bash", ["-c", script], environment: environment, directory: directory, timeout: 120)
            try step.check(command, result.status, result.output, &values)
        }
        let unwaited = background.map(\.command)
        #expect(unwaited.isEmpty, "jobs started with & and never waited for")
        #expect(used.contains("tessera serve"), "the walk-through never starts the server")
        #expect(used.contains("wait") || !Self.steps.contains { $0.name.hasSuffix("&") }, "no `wait` for the relying party")
        let missing = Self.steps.map(\.name).filter { !used.contains($0) }
        #expect(missing.isEmpty, "steps the README no longer has: \(missing)")
        // Ctrl-C ends the server in the foreground, as the README says.
        if let server {
            #expect(server.isRunning, "the server stopped during the walk-through: \(serverOutput().suffix(3000))")
            server.signal(SIGINT)
            let status = await server.exited()
            #expect(status == 0, "Ctrl-C: exit status \(status): \(serverOutput().suffix(2000))")
        }
    }
}
