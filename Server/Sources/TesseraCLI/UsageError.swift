import ArgumentParser
import Foundation
import TesseraServer

/// Every usage error (exit 2) in one format, whether the parser found it, the command while
/// running, or the configuration check:
///
///     error: unknown option '--pinn' (did you mean '--pin'?)
///     (see 'tessera device login --help')
///
/// A mistyped option gets the closest of the command's own options and, for the commands that
/// take configuration flags (`serve`, `admin …`), of the configuration keys; a mistyped
/// subcommand gets the closest subcommand.
enum UsageError {
    /// The command being run, set once it is parsed (for the `(see … --help)` line and the
    /// suggestions of errors found while it runs).
    nonisolated(unsafe) static var command: (any ParsableCommand.Type)?

    /// The text of a usage error of the command being run (the root before one is parsed).
    static func text(_ message: String) -> String {
        text(message, path: subcommandPath(to: command))
    }

    /// The text of a usage error of the command at `path` (subcommand names from the root).
    static func text(_ message: String, path: [String]) -> String {
        let name = (["tessera"] + path).joined(separator: " ")
        return "error: \(message)\n(see '\(name) --help')"
    }

    /// The text for an error the parser threw: its message in this format, a mistyped subcommand
    /// named as such with the closest one.
    static func text(parserError error: any Error, arguments: [String]) -> String {
        let resolved = resolve(arguments)
        if let unknown = resolved.unknown {
            let name = (["tessera"] + resolved.path).joined(separator: " ")
            return text("unknown command '\(unknown)' for '\(name)'\(suggestion(for: unknown, among: resolved.subcommands))", path: resolved.path)
        }
        if let type = resolved.type, let unknown = unknownOption(in: arguments, of: type) {
            // Before the parser's "missing expected argument": the mistyped flag is often the missing one.
            return text("unknown option '\(unknown)'\(suggestion(for: unknown, among: ownOptions(of: type)))", path: resolved.path)
        }
        return text(normalize(TesseraCommand.message(for: error)), path: resolved.path)
    }

    /// The first `--option` of the command line that neither the command nor the configuration
    /// keys (which `serve` and `admin` take) know.
    static func unknownOption(in arguments: [String], of command: any ParsableCommand.Type) -> String? {
        let known = Set(ownOptions(of: command) + ConfigurationKeys.all.map(ConfigurationKeys.flag(for:)) + ["--help", "--version"])
        for argument in arguments {
            if argument == "--" { break }
            guard argument.hasPrefix("--") else { continue }
            let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
            if !known.contains(name) { return name }
        }
        return nil
    }

    /// The parser's message in this format: `Unknown option '--pinn'. Did you mean '--pin'?` →
    /// `unknown option '--pinn' (did you mean '--pin'?)`.
    static func normalize(_ message: String) -> String {
        var message = message.trimmingCharacters(in: .whitespacesAndNewlines)
        if let range = message.range(of: ". Did you mean ") {
            message = message[..<range.lowerBound] + " (did you mean " + message[range.upperBound...].trimmingCharacters(in: .init(charactersIn: "?")) + "?)"
        }
        if let first = message.first, first.isUppercase, message.dropFirst().first?.isLowercase == true {
            message = first.lowercased() + message.dropFirst()
        }
        return message
    }

    /// What the leading words of a command line name: the path of the deepest command they reach,
    /// its subcommands, and the word after it when the command has subcommands and the word names none.
    struct Resolved {
        var path: [String] = []
        var type: (any ParsableCommand.Type)? = TesseraCommand.self
        var subcommands: [String] = []
        var unknown: String?
    }

    static func resolve(_ arguments: [String]) -> Resolved {
        var resolved = Resolved()
        var children: [any ParsableCommand.Type] = TesseraCommand.configuration.subcommands
        for word in arguments {
            guard !word.hasPrefix("-"), !children.isEmpty else { break }
            let names = children.map { $0.configuration.commandName ?? "" }
            if let index = children.firstIndex(where: { $0.configuration.commandName == word || $0.configuration.aliases.contains(word) }) {
                resolved.path.append(names[index])
                resolved.type = children[index]
                children = children[index].configuration.subcommands
            } else {
                if word != "help" {
                    resolved.unknown = word
                    resolved.subcommands = names
                }
                break
            }
        }
        return resolved
    }

    /// The subcommand names from the root to `command`.
    static func subcommandPath(to command: (any ParsableCommand.Type)?) -> [String] {
        guard let command else { return [] }
        func search(_ node: any ParsableCommand.Type, _ path: [String]) -> [String]? {
            if ObjectIdentifier(node) == ObjectIdentifier(command) { return path }
            for child in node.configuration.subcommands {
                if let found = search(child, path + [child.configuration.commandName ?? ""]) { return found }
            }
            return nil
        }
        return search(TesseraCommand.self, []) ?? []
    }

    /// Refuses the flags a command with configuration flags did not parse itself (`ServerOptions.extra`)
    /// when they name no configuration key: the closest of the command's own options and the keys' flags.
    static func checkConfigurationArguments(_ arguments: [String]) throws {
        let flags = Set(ConfigurationKeys.all.map(ConfigurationKeys.flag(for:)))
        for argument in arguments where argument.hasPrefix("--") {
            let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
            guard !flags.contains(name) else { continue }
            let own = command.map { ownOptions(of: $0) } ?? []
            throw ValidationError("unknown option '\(name)'\(suggestion(for: name, among: own + flags.sorted()))")
        }
    }

    /// The long options a command's help lists, and those of its default subcommand (`tessera node`
    /// runs `tessera node run`).
    static func ownOptions(of command: any ParsableCommand.Type) -> [String] {
        let help = TesseraCommand.helpMessage(for: command, columns: 400)
        let own = help.matches(of: /(?:^|[\s\[,])(--[a-z][a-z0-9-]*)/).map { String($0.output.1) }
        guard let fallback = command.configuration.defaultSubcommand else { return own }
        return own + ownOptions(of: fallback)
    }

    /// ` (did you mean 'x'?)` when one of `candidates` is close to `name`, else empty.
    static func suggestion(for name: String, among candidates: [String]) -> String {
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != name {
            let d = distance(name.lowercased(), candidate.lowercased())
            if d < (best?.distance ?? Int.max) { best = (candidate, d) }
        }
        guard let best, best.distance <= max(2, name.count / 4) else { return "" }
        return " (did you mean '\(best.name)'?)"
    }

    /// Levenshtein distance, a transposition counting as one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
