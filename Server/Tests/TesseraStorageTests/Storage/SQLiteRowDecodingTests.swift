import Foundation
import SQLiteKit
import SQLiteNIO
import Testing
@testable import TesseraHTTPKit
import TesseraServerTestSupport

/// ``SQLiteDirectRow`` reads text as `String` and integers as `Int` without SQLiteKit's decoder: every
/// value must come out as the decoder gives it (or fail where it fails), for those types and the others.
@Suite("SQLite rows")
struct SQLiteRowDecodingTests {
    private static let values: [SQLiteData] = [
        .text(""), .text("abc"), .text("é👍🏽"), .text("12"), .text("-7"), .text("1.5"), .text("true"),
        .integer(0), .integer(1), .integer(-42), .integer(Int.max), .integer(Int.min),
        .float(0), .float(2.5), .float(-3), .blob(ByteBuffer(bytes: [0, 1, 2])), .null,
    ]

    /// The row's answer and the decoder's, as text: the value, or that it failed.
    private func both<D: Decodable & Sendable>(_ value: SQLiteData, as type: D.Type) -> (row: String, decoder: String) {
        let row = SQLiteDirectRow(index: .init(["c"]), values: [value], decoder: SQLiteDataDecoder())
        func describe(_ body: () throws -> D) -> String {
            do { return "ok \(String(reflecting: try body()))" } catch { return "failed" }
        }
        return (describe { try row.decode(column: "c", as: D.self) }, describe { try SQLiteDataDecoder().decode(D.self, from: value) })
    }

    @Test("String, Int and other types come out of a row as SQLiteKit's decoder gives them")
    func sameAsTheDecoder() {
        var compared = 0
        for value in Self.values {
            for answer in [
                both(value, as: String.self), both(value, as: Int.self), both(value, as: Int64.self), both(value, as: Bool.self),
                both(value, as: Double.self), both(value, as: String?.self), both(value, as: Int?.self),
            ] {
                #expect(answer.row == answer.decoder, "\(value)")
                compared += 1
            }
        }
        #expect(compared == Self.values.count * 7)
    }
}
