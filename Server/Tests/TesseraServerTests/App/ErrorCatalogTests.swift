import Foundation
import HTTPTypes
import Testing
import TesseraCore
import TesseraHTTPKit
import TesseraServerTestSupport

/// The error table (`TesseraHTTPKit/ErrorCatalog.swift`): one status and one title per code, and
/// errors built only by its factories.
@Suite("Error catalog")
struct ErrorCatalogTests {
    /// Codes the server never answers with: success, the retired 8002 and the SDK-side 91xx.
    static let notAnswered: Set<ErrorCode> = [.success, .pushSettingsUnknown, .networkError, .invalidResponse, .localAuthRequired, .localFailure, .passkeyCanceled]

    /// Files of other owners that still spell out `AppError(code, status, title…)`; each one leaves this
    /// list when it moves to the factories, and the public memberwise initialiser goes with the last.
    static let notYetMoved: Set<String> = []
    /// The table and its factories: the only files that build an AppError field by field.
    static let tableFiles: Set<String> = [
        "TesseraHTTPKit/ErrorCatalog.swift", "TesseraHTTPKit/ErrorCatalog+Factories.swift", "TesseraHTTPKit/ErrorCatalog+AppAttest.swift",
    ]

    /// Initialisers that convert another error and take no status or title.
    static let converting = ["AppError(decoding:", "AppError(transport:", "AppError(httpError:"]

    static let serverSources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    @Test("every code the server answers with has exactly one line: one status, one title")
    func oneLinePerCode() {
        let codes = ErrorCatalog.entries.map(\.code)
        let repeated = Dictionary(grouping: codes, by: { $0 }).filter { $0.value.count > 1 }.keys.map(\.description)
        #expect(repeated.isEmpty, "codes with more than one line: \(repeated.sorted())")
        let expected = Set(ErrorCode.names.keys.map(ErrorCode.init(rawValue:))).subtracting(Self.notAnswered)
        let missing = expected.subtracting(codes).map(\.description).sorted()
        let extra = Set(codes).subtracting(expected).map(\.description).sorted()
        #expect(missing.isEmpty, "codes without a line: \(missing)")
        #expect(extra.isEmpty, "lines for codes the server does not answer with: \(extra)")
        #expect(codes == codes.sorted { $0.rawValue < $1.rawValue }, "lines out of code order")
        for entry in ErrorCatalog.entries {
            #expect((400..<600).contains(entry.status.code), "\(entry.code): \(entry.status)")
            #expect(!entry.title.isEmpty && entry.title.count <= 100, "\(entry.code): \(entry.title)")
            #expect(ErrorCatalog.entry(entry.code).title == entry.title && ErrorCatalog.entry(entry.code).status == entry.status)
        }
    }

    @Test("only 1102 and 3007 have a second status: 404 for the object an admin path names")
    func adminLookupStatus() {
        #expect(Set(ErrorCatalog.adminLookupStatus.keys) == [.clientUnknown, .deviceUnknown])
        #expect(ErrorCatalog.adminLookupStatus.values.allSatisfy { $0 == .notFound })
        #expect(AppError.clientUnknown().status == .unauthorized && AppError.noSuchClient().status == .notFound)
        #expect(AppError.deviceUnknown().status == .unauthorized && AppError.noSuchDevice().status == .notFound)
        #expect(AppError.noSuchClient().title == AppError.clientUnknown().title)
        #expect(AppError.noSuchDevice().title == AppError.deviceUnknown().title)
    }

    @Test("the factories take status and title from the table; what the site knows is the detail")
    func factoriesUseTheTable() {
        let errors: [AppError] = [
            .otpExpired(), .otpInvalid(remainingAttempts: 3), .totpLocked(detail: "reset"), .invalidField("name", "too long"),
            .fieldMissing("pin", "A PIN authenticator needs pin"), .notFound("No such route"), .conflict("already"), .internalError,
            .malformedHTTP, .bodyTooLarge(limit: 10), .authChannelState(), .webhookURLInvalid("no", field: "url"),
        ]
        for error in errors {
            let entry = ErrorCatalog.entry(error.code)
            #expect(error.status == entry.status && error.title == entry.title, "\(error)")
        }
        #expect(AppError.otpInvalid(remainingAttempts: 3).detail == "3 tries left")
        #expect(AppError.totpLocked(detail: "reset").status.code == 423)
        #expect(AppError.fieldMissing("pin", "A PIN authenticator needs pin").detail == "A PIN authenticator needs pin")
    }

    @Test("the table agrees with the HTTP column of docs/error-codes.md")
    func documentedStatus() throws {
        let docs = Self.serverSources.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/error-codes.md")
        var documented: [Int: String] = [:]
        for line in try String(contentsOf: docs, encoding: .utf8).split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count > 2, let code = Int(cells[0]) { documented[code] = cells[2] }
        }
        for entry in ErrorCatalog.entries {
            let statuses = [entry.status] + (ErrorCatalog.adminLookupStatus[entry.code].map { [$0] } ?? [])
            let expected = statuses.map { String($0.code) }.joined(separator: " / ")
            #expect(documented[entry.code.rawValue] == expected, "\(entry.code): docs say \(documented[entry.code.rawValue] ?? "nothing")")
        }
    }

    @Test("no AppError( literal outside the table, but converting initialisers")
    func noLiteralOutsideTheTable() throws {
        let files = try #require(FileManager.default.enumerator(at: Self.serverSources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 100, "read \(files.count) files under \(Self.serverSources.path)")
        var found: [String] = []
        var stillSpelled: Set<String> = []
        for file in files {
            let relative = String(file.standardizedFileURL.path.dropFirst(Self.serverSources.standardizedFileURL.path.count + 1))
            guard !Self.tableFiles.contains(relative) else { continue }
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            for (index, line) in lines.enumerated() {
                var rest = Substring(line)
                if let comment = rest.range(of: "//") { rest = rest[..<comment.lowerBound] }
                var search = rest.startIndex
                while let hit = rest.range(of: "AppError(", range: search..<rest.endIndex) {
                    search = hit.upperBound
                    if Self.converting.contains(where: { rest[hit.lowerBound...].hasPrefix($0) }) { continue }
                    if Self.notYetMoved.contains(relative) {
                        stillSpelled.insert(relative)
                    } else {
                        found.append("\(relative):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        #expect(found.isEmpty, "build errors with a factory of TesseraHTTPKit/ErrorCatalog.swift:\n\(found.joined(separator: "\n"))")
        let moved = Self.notYetMoved.subtracting(stillSpelled).sorted()
        #expect(moved.isEmpty, "no AppError( literal left in \(moved): remove them from ErrorCatalogTests.notYetMoved")
    }
}
