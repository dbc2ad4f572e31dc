import Crypto
import Foundation
import Testing
@testable import TesseraCore

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

    @Test("RFC 4226 Appendix D HOTP vectors (counters 0–9)")
    func hotpVectors() {
        let totp = TOTP(secret: Self.rfcSecret)
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        #expect((0...9).map { totp.code(forStep: Int64($0)) } == expected)
        #expect(totp.codes(forSteps: 0...9) == expected)
    }

    @Test("the HMAC keyed once equals swift-crypto's HMAC-SHA-1 for keys of every length up to three blocks")
    func keyedSHA1() {
        for length in 0...150 {
            let key = (0..<length).map { _ in UInt8.random(in: 0...255) }
            let keyed = KeyedSHA1(key: key)
            for counter in [UInt64(0), 1, UInt64.random(in: 0...UInt64.max), UInt64.max] {
                let message = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
                let expected = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: key)))
                #expect(keyed.mac(counter: counter) == expected, "key length \(length), counter \(counter)")
            }
        }
    }

    @Test("the matching step is the step whose code was given, nil for a wrong code or anything but its digits")
    func matchingStep() {
        for _ in 0..<200 {
            let totp = TOTP(secret: (0..<20).map { _ in UInt8.random(in: 0...255) }, digits: Int.random(in: 6...8))
            let current = Int64.random(in: 1...4_000_000_000 / 30)
            let window = (current - 1)...(current + 1)
            let codes = totp.codes(forSteps: window)
            let pairs = Array(zip(window, codes))
            for (step, code) in pairs {
                // The latest step with this code (two steps of a window share a code about once in 10^digits).
                let latest = pairs.last { $0.1 == code }?.0
                #expect(latest != nil && latest! >= step)
                #expect(totp.matchingStep(code, in: window) == latest)
            }
            let outside = totp.code(forStep: current + 5)
            if !codes.contains(outside) { #expect(totp.matchingStep(outside, in: window) == nil) }
            let wrong = String(repeating: "0", count: totp.digits - 1) + "x"
            #expect(totp.matchingStep(wrong, in: window) == nil)
            #expect(totp.matchingStep(String(codes[1].dropLast()), in: window) == nil)
            #expect(totp.matchingStep(codes[1] + "0", in: window) == nil)
        }
        let totp = TOTP(secret: Self.rfcSecret)
        #expect(totp.matchingStep("287082", in: 0...2) == 1)
        #expect(totp.matchingStep("２８７０８２", in: 0...2) == nil)
        #expect(totp.matchingStep(" 87082", in: 0...2) == nil)
        #expect(totp.matchingStep("", in: 0...2) == nil)
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

    /// Without oathtool the test fails naming it (`scripts/test.sh` installs it); only a `--quick` run skips it.
    @Test("codes equal oathtool's for random 20-byte secrets",
          .enabled(if: oathtool != nil || ProcessInfo.processInfo.environment["TESSERA_TEST_QUICK"] != "1",
                   "skipped in --quick: oathtool (Debian package oathtool) is missing"))
    func matchesOathtool() throws {
        let tool = try #require(Self.oathtool, "missing oathtool (Debian package oathtool): scripts/test.sh installs it")
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
