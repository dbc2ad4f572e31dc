import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small secret file (a master key, a node key) read if present and created once if not, safely
/// when several processes start together on one data directory: the new file is written in full
/// under a temporary name and then linked into place, which fails if another process got there
/// first. Then everyone reads the winner's key, so no instance ever runs with a key that is not on
/// disk.
public enum KeyFile {
    /// The file's contents, trimmed; or, when it does not exist, `make()`'s, written with mode 0600.
    /// - Returns: the text and whether this call created the file.
    public static func readOrCreate(path: String, make: () -> String) throws -> (text: String, created: Bool) {
        if let existing = read(path) { return (existing, false) }
        let text = make()
        let temporary = path + ".\(UUID().uuidString).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data((text + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ConfigurationError("cannot write \(temporary): check that the directory exists and is writable")
        }
        defer { unlink(temporary) }
        if link(temporary, path) == 0 { return (text, true) }
        let failure = errno
        guard failure == EEXIST, let winner = read(path) else {
            throw ConfigurationError("cannot create \(path): \(String(cString: strerror(failure)))")
        }
        return (winner, false)
    }

    private static func read(_ path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
