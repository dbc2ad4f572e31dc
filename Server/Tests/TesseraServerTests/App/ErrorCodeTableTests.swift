import Foundation
import Testing
import TesseraCore
import TesseraServerTestSupport

/// docs/error-codes.md and `ErrorCode` agree: every code documented with its name, none missing.
@Suite("Error code table")
struct ErrorCodeTableTests {
    @Test("every code is in docs/error-codes.md with its name")
    func documented() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../../docs/error-codes.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        var table: [Int: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if let code = Int(cells[0]) { table[code] = cells[1] }
        }
        #expect(table == ErrorCode.names)
    }
}
