import Foundation
import Testing
import TesseraCore

/// RFC 6238 against the RFC's own vectors and against oathtool (the reference tool, Debian package).
@Suite("TOTP")
struct TOTPTests {
    static let rfcSecret = Array("12345678901234567890".utf8)

    @Test("RFC 6238 Appendix B vectors (SHA-1, 8 digits)", arguments: [
        (Int64(59), "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
        (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ])
    func rfcVectors(time: Int64, expected: String) {
        let totp = TOTP(secret: Self.rfcSecret, digits: 8)
        #expect(totp.code(at: Date(timeIntervalSince1970: TimeInterval(time))) == expected)
    }

    @Test("base32 round trip and the RFC 4648 vectors")
    func base32() {
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.decode("MZXW6YTBOI======") == Array("foobar".utf8))
        #expect(Base32.decode("mzxw6ytboi") == Array("foobar".utf8))
        #expect(Base32.decode("MZXW1") == nil)
        for length in 0..<41 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255) }
            #expect(Base32.decode(Base32.encode(bytes)) == bytes)
        }
    }

    static let oathtool = ["/usr/bin/oathtool", "/usr/local/bin/oathtool"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("codes equal oathtool's for random 20-byte secrets", .enabled(if: oathtool != nil || ProcessInfo.processInfo.environment["CI"] == "true"))
    func matchesOathtool() throws {
        let tool = try #require(Self.oathtool, "oathtool is required in CI (apt-get install oathtool)")
        for _ in 0..<5 {
            let secret = (0..<20).map { _ in UInt8.random(in: 0...255) }
            let base32 = Base32.encode(secret)
            let time = Int64.random(in: 1_000_000_000...4_000_000_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = ["--totp", "-b", "-N", "@\(time)", base32]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let expected = output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(TOTP(base32Secret: base32)?.code(at: Date(timeIntervalSince1970: TimeInterval(time))) == expected, "secret \(base32) at \(time)")
        }
    }
}
