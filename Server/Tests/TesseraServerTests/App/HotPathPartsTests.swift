import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import TesseraCore
@testable import TesseraServer
@testable import TesseraHTTPKit
import Crypto
import SQLiteKit
import TesseraServerTestSupport

/// The small parts that the hot paths now do by hand instead of through Foundation or a system call
/// per byte: they must answer exactly as before.
@Suite("Hot-path parts")
struct HotPathPartsTests {
    static func header(_ scheme: String, _ pair: String, pad: String = "") -> String {
        "\(scheme) \(pad)\(Data(pair.utf8).base64EncodedString())\(pad)"
    }

    @Test("Basic credentials: any case of the scheme, blanks around them ignored, anything else refused")
    func basicCredentials() {
        #expect(BackendAuthMiddleware<TesseraRequestContext>.basicCredentials(Self.header("Basic", "tck_a:tcs_b")) == "tck_a:tcs_b")
        #expect(BackendAuthMiddleware<TesseraRequestContext>.basicCredentials(Self.header("bAsIc", "k:s", pad: " \t ")) == "k:s")
        for refused in [
            "Basic", "Basic ", "Bearer " + Data("k:s".utf8).base64EncodedString(), "Basicx" + Data("k:s".utf8).base64EncodedString(),
            "Basic !!!not-base64", "Basic " + Data([0xFF, 0xFE]).base64EncodedString(), "Digest k:s",
        ] {
            #expect(BackendAuthMiddleware<TesseraRequestContext>.basicCredentials(refused) == nil, "\(refused)")
        }
    }

    /// The form parser as it was before it split on bytes (by Characters), kept to compare with.
    static func formByCharacters(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            if let name = parts.first, fields[name] == nil { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }

    @Test("Forms split on the bytes of & and =: the same fields as before for every input whose & and = stand alone")
    func formFields() throws {
        let token = String(repeating: "eyJhbGciOiJFUzI1NiJ9.", count: 30)
        let inputs = [
            "", "&", "=", "&&", "a", "a=", "=b", "a=b", "a=b&a=c", "a=b=c", "a==b", "&a=1&&b=2&", "token=\(token)&token_type_hint=x",
            "a+b=c+d", "a%20b=%2Fx%3D", "q=%E2%9C%93&r=caf%C3%A9", "bad=%zz&ok=1", "ünï=cödé&€=1", "a=%26&b=%3D", "x=1%2", "emoji=👍🏽&k=v",
        ]
        for input in inputs {
            #expect(RelyingPartyController<TesseraRequestContext>.form(input) == Self.formByCharacters(input), "\(input.debugDescription)")
        }
        // A combining mark after "&" made one Character with it, so the old parser did not split there; the
        // bytes are split, as the URL standard's form parser does.
        #expect(RelyingPartyController<TesseraRequestContext>.form("a=1&\u{301}b=2") == ["a": "1", "\u{301}b": "2"])
    }

    /// The form parser before it scanned the bytes itself (`split` on the UTF-8 view): the reference.
    static func formBySplit(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.utf8.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1).map { part in
                guard part.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(Substring(part)) }
                return String(Substring(part)).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let name = parts.first, fields[name] == nil { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }

    @Test("Forms scanned byte by byte give the fields that splitting the UTF-8 view gave, for every arrangement of & = % + and text")
    func formScan() {
        let pieces = ["&", "=", "a", "b", "%41", "+", "%", "é", "👍🏽", "\u{301}", "%zz", "%26", "%3D", ""]
        var inputs: [String] = ["", "=a=b", "==", "&&=&", "a=b&a=c", "token=" + String(repeating: "eyJ0.", count: 120)]
        // Every string of up to four pieces, and some longer ones built the same way.
        var level = [""]
        for _ in 0..<4 { level = level.flatMap { prefix in pieces.map { prefix + $0 } }; inputs += level }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 { inputs.append((0..<12).map { _ in pieces.randomElement(using: &generator)! }.joined()) }
        for input in inputs {
            #expect(RelyingPartyController<TesseraRequestContext>.form(input) == Self.formBySplit(input), "\(input.debugDescription)")
        }
    }

    @Test("A form read from the body's bytes has the fields of the form read from its text, invalid UTF-8 included")
    func formFromBytes() {
        let pieces: [[UInt8]] = [
            [0x26], [0x3D], [0x61], Array("%41".utf8), [0x2B], Array("é".utf8), [0xE2, 0x82], [0xFF], [0xC3], [0x80], [0xF0, 0x9F, 0x91],
            Array("token".utf8), [0x00],
        ]
        var generator = SystemRandomNumberGenerator()
        var inputs: [[UInt8]] = [[], Array("token=abc&token_type_hint=x".utf8)]
        for _ in 0..<3000 { inputs.append((0..<10).flatMap { _ in pieces.randomElement(using: &generator)! }) }
        for input in inputs {
            let buffer = ByteBuffer(bytes: input)
            #expect(
                RelyingPartyController<TesseraRequestContext>.form(buffer: buffer)
                    == RelyingPartyController<TesseraRequestContext>.form(String(buffer: buffer)), "\(input)"
            )
        }
    }

    @Test("Introspection, TOTP and login answers, progress events and node requests written by hand are byte for byte what the JSON encoder writes")
    func handWrittenJSON() throws {
        var controls = ""
        for value in 0..<0x20 { controls.unicodeScalars.append(Unicode.Scalar(UInt8(value))) }
        let texts = ["", "plain", controls, "\"quoted\" back\\slash /slash", "é 👍🏽 \u{7F} \u{2028} \u{FEFF}", "a\u{0}b", "tail\"", " \u{1F}", "~ !#"]
        var generator = SystemRandomNumberGenerator()
        func text() -> String { texts.randomElement(using: &generator)! }
        func maybe<T>(_ value: T) -> T? { Bool.random(using: &generator) ? value : nil }
        var answers: [IntrospectionResponse] = [.inactive, IntrospectionResponse(active: true, amr: [], nodes: [])]
        for _ in 0..<500 {
            answers.append(IntrospectionResponse(
                active: Bool.random(using: &generator), tokenType: maybe(text()), clientId: maybe(text()), sub: maybe(text()),
                iss: maybe(text()), aud: maybe(text()), iat: maybe(Int64.random(in: .min ... .max, using: &generator)),
                exp: maybe(Int64.random(in: -5...5, using: &generator)), jti: maybe(text()), deviceId: maybe(text()),
                amr: maybe((0..<Int.random(in: 0...3, using: &generator)).map { _ in text() }),
                nodes: maybe((0..<Int.random(in: 0...3, using: &generator)).map { _ in text() })
            ))
        }
        for answer in answers {
            let expected = try SharedJSON.encoder.encode(answer)
            #expect(answer.jsonBytes == Array(expected), "\(String(decoding: expected, as: UTF8.self))")
        }
        for deviceId in texts {
            #expect(TOTPVerifyResponse(deviceId: deviceId).jsonBytes == Array(try SharedJSON.encoder.encode(TOTPVerifyResponse(deviceId: deviceId))))
        }
        // The login ceremony's answers, progress events and node requests.
        func same(_ value: some JSONObjectWritable) throws {
            let expected = try SharedJSON.encoder.encode(value)
            #expect(value.jsonBytes == Array(expected), "\(String(decoding: expected, as: UTF8.self))")
        }
        func someTexts(_ count: Int) -> [String] { (0..<count).map { _ in text() } }
        let streamEncoder = JSONEncoder()
        streamEncoder.outputFormatting = [.sortedKeys]
        for _ in 0..<300 {
            try same(AuthChannelResponse(
                channelId: text(), challenge: text(), authType: text(), connectIp: text(), message: text(), userKey: text(), clientKey: text(),
                expiresIn: Int.random(in: -1000...1000, using: &generator), numberChoices: maybe(someTexts(Int.random(in: 0...3, using: &generator))),
                appAttestAssertion: maybe(["required", "accepted"].randomElement(using: &generator)!)
            ))
            try same(AuthStartResponse(authType: text(), nodes: someTexts(Int.random(in: 0...3, using: &generator))))
            try same(AuthResultResponse(token: text(), expiresIn: Int.random(in: .min ... .max, using: &generator)))
            try same(NodeAttestRequest(channelId: text(), deviceId: text(), challenge: text(), challengeSignature: text() + "/+="))
            let event = AuthEvent(
                status: maybe(AuthStatus.allCases.randomElement(using: &generator)!), outcome: maybe(AuthOutcome.allCases.randomElement(using: &generator)!),
                code: maybe(Int.random(in: 1000...9999, using: &generator)), at: Int64.random(in: .min ... .max, using: &generator)
            )
            try same(event)
            // The progress stream's own encoder (sorted keys, slashes escaped): the same, as no member holds a slash.
            #expect(event.jsonBytes == Array(try streamEncoder.encode(event)))
        }
    }

    @Test("The NUL check finds U+0000 in strings and substrings, wherever it is")
    func nulCheck() throws {
        for text in ["", "abc", "ü€👍🏽", String(repeating: "x", count: 600)] {
            try TextCheck.check(text, field: "f")
            try TextCheck.check(text.dropFirst(), field: "f")
            for position in [0, text.count / 2, text.count] {
                var bad = text
                bad.insert("\u{0}", at: bad.index(bad.startIndex, offsetBy: position))
                #expect(throws: AppError.self) { try TextCheck.check(bad, field: "f") }
                #expect(throws: AppError.self) { try TextCheck.check(bad[...], field: "f") }
            }
        }
    }

    @Test("The system random source gives the asked number of bytes, different each time")
    func systemRandom() {
        for count in [0, 1, 7, 8, 9, 16, 33] { #expect(RandomSource.system.bytes(count).count == count) }
        let drawn = Set((0..<64).map { _ in RandomSource.system.bytes(16) })
        #expect(drawn.count == 64)
        // Every byte value turns up in 64 KiB (a byte drawn badly, e.g. always 0 past the eighth, would not).
        let many = RandomSource.system.bytes(65_536)
        #expect(Set(many).count == 256)
        #expect(Set(many.enumerated().filter { $0.offset % 8 == 7 }.map(\.element)).count > 200)
    }

    @Test("TOTP codes for a window equal the codes step by step (RFC 6238 vectors)")
    func totpWindow() {
        let totp = TOTP(secret: Array("12345678901234567890".utf8), digits: 8)
        // RFC 6238 appendix B, SHA-1: T = 59 s is step 1; 1111111109 s is step 37037036.
        #expect(totp.codes(forSteps: 1...1) == ["94287082"])
        #expect(totp.codes(forSteps: 37_037_035...37_037_037) == (37_037_035...37_037_037).map { totp.code(forStep: $0) })
        #expect(totp.codes(forSteps: 37_037_036...37_037_036) == ["07081804"])
    }

    @Test("The secret hash is HMAC-SHA-256 of domain, a zero byte and the secret: stored hashes still verify")
    func secretHash() {
        let key = SymmetricKey(data: Array(0..<32 as Range<UInt8>))
        let hasher = SecretHasher(key: key)
        for (secret, domain) in [("tcs_abc", "client-secret"), ("", "x"), ("é ü \u{1F600}", "session-token")] {
            let expected = HMAC<SHA256>.authenticationCode(for: Array(domain.utf8) + [0] + Array(secret.utf8), using: key)
            #expect(hasher.hash(secret, domain: domain) == expected.map { String(format: "%02x", $0) }.joined())
            #expect(hasher.verify(secret, domain: domain, against: hasher.hash(secret, domain: domain)))
        }
        #expect(hasher.hash("a", domain: "bc") != hasher.hash("ab", domain: "c"))
    }

    @Test("The scan for the escape \\u0000 finds it where Data.range(of:) does, at every position and in partial copies")
    func nulEscapeScan() {
        let pieces = [#"\"#, "u", "0", "x", #"\u000"#, #"\u0000"#, #"\\"#, "é", ""]
        var inputs = ["", #"\u0000"#, #"\u000"#, #"x\u0000"#, #"\u0000x"#, #"\\u0000"#, #"\u00000"#]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 { inputs.append((0..<8).map { _ in pieces.randomElement(using: &generator)! }.joined()) }
        for input in inputs {
            let data = Data(input.utf8)
            #expect(TextCheck.mayHoldNULEscape(data) == (data.range(of: Data(#"\u0000"#.utf8)) != nil), "\(input)")
            // A slice that does not start at index 0.
            let slice = Data(Array("ab".utf8) + Array(input.utf8)).dropFirst(2)
            #expect(TextCheck.mayHoldNULEscape(slice) == (slice.range(of: Data(#"\u0000"#.utf8)) != nil), "\(input)")
        }
    }

    @Test("A flat object of plain strings read without JSONDecoder gives what JSONDecoder gives; anything else is left to it")
    func flatJSON() throws {
        var generator = SystemRandomNumberGenerator()
        func pick<T>(_ options: [T]) -> T { options.randomElement(using: &generator)! }
        let spaces = ["", " ", "\t", "\n", "\r\n", "  ", "\u{0B}", "\u{A0}"]
        let names = [#""userKey""#, #""code""#, #""other""#, #""user_key""#, #""""#, #""Code""#, #""co\u0064e""#]
        let values = [
            #""123456""#, #""u-1""#, #""""#, #""a b~!""#, #""é""#, #""tab\there""#, #""q\"q""#, "1", "null", "true", "[]", "{}",
            #""\u0000""#, "\"\u{7F}\"", "\"\u{1F}\"", "\"x", #""12345\/""#,
        ]
        var documents: [String] = ["", "{}", " {} ", "{", "}", "[]", #"{"userKey":"u","code":"123456"}"#, #"{"userKey":"u","code":"123456"}x"#]
        for _ in 0..<4000 {
            var members: [String] = []
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                members.append(pick(spaces) + pick(names) + pick(spaces) + pick([":", ":", ":", "", "="]) + pick(spaces) + pick(values) + pick(spaces))
            }
            var document = pick(spaces) + pick(["{", "{", "{", "[", ""]) + members.joined(separator: pick([",", ",", ",", ",,", ";"]))
            document += pick(["}", "}", "}", "", "}}"]) + pick(spaces)
            documents.append(document)
        }
        // Mostly well-formed requests: both members with plain values, extra members of any kind, any order.
        let plain = [#""123456""#, #""u-1""#, #""""#, #""a b~!""#, #""000000""#]
        for _ in 0..<2000 {
            var members = [#""userKey":"# + pick(spaces) + pick(plain), #""code""# + pick(spaces) + ":" + pick(plain)]
            for _ in 0..<Int.random(in: 0...2, using: &generator) { members.append(pick(names) + ":" + pick(values)) }
            documents.append(pick(spaces) + "{" + members.shuffled(using: &generator).joined(separator: pick(spaces) + "," + pick(spaces)) + "}" + pick(spaces))
        }
        var fastCount = 0
        for document in documents {
            let data = Data(document.utf8)
            let members = FlatJSONReader.strings(data)
            if let members {
                #expect(try JSONDecoder().decode([String: String].self, from: data) == members, "\(document.debugDescription)")
            }
            guard let fast = members.flatMap(TOTPVerifyRequest.init(flatStrings:)) else { continue }
            fastCount += 1
            #expect(try AppError.decodeJSON(TOTPVerifyRequest.self, from: data) == fast, "\(document.debugDescription)")
        }
        #expect(fastCount > 100)
        #expect(FlatJSONReader.strings(Data(#"{"a":"1","a":"2"}"#.utf8)) == nil)
        #expect(FlatJSONReader.strings(Data(#" { "userKey" : "u" , "code" : "123456" } "#.utf8)) == ["userKey": "u", "code": "123456"])
    }

    @Test("A media-type prefix compared without ASCII case agrees with lowercased().hasPrefix")
    func mediaTypePrefix() {
        let inputs = [
            "application/json", "Application/JSON; charset=utf-8", "APPLICATION/X-WWW-FORM-URLENCODED", "application/jso",
            "", "text/plain", "application/json\u{0}", "applİcation/json", "application/\u{212A}son", "ａpplication/json",
            "application/x-www-form-urlencoded;charset=UTF-8", "application/x-www-form-urlencodedX", " application/json",
        ]
        for input in inputs {
            #expect(input.hasPrefix(ignoringASCIICase: "application/json") == input.lowercased().hasPrefix("application/json"), "\(input)")
            #expect(
                input.hasPrefix(ignoringASCIICase: "application/x-www-form-urlencoded")
                    == input.lowercased().hasPrefix("application/x-www-form-urlencoded"), "\(input)"
            )
        }
        #expect("Application/Json".hasPrefix(ignoringASCIICase: "application/json"))
        #expect(!"application/jsox".hasPrefix(ignoringASCIICase: "application/json"))
    }

    @Test("A secret verifies against its own hash only: every changed digit, a cut or longer hash, another secret or domain is refused")
    func secretVerify() {
        let hasher = SecretHasher(key: SymmetricKey(data: Array(repeating: UInt8(7), count: 32)))
        let stored = hasher.hash("tcs_secret", domain: "client-secret")
        #expect(hasher.verify("tcs_secret", domain: "client-secret", against: stored))
        #expect(!hasher.verify("tcs_secreT", domain: "client-secret", against: stored))
        #expect(!hasher.verify("tcs_secret", domain: "session-token", against: stored))
        #expect(!hasher.verify("tcs_secret", domain: "client-secret", against: String(stored.dropLast())))
        #expect(!hasher.verify("tcs_secret", domain: "client-secret", against: stored + "0"))
        #expect(!hasher.verify("tcs_secret", domain: "client-secret", against: ""))
        #expect(!hasher.verify("tcs_secret", domain: "client-secret", against: stored.uppercased()))
        let digits = Array(stored.utf8)
        for index in digits.indices {
            var changed = digits
            changed[index] = changed[index] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            #expect(!hasher.verify("tcs_secret", domain: "client-secret", against: String(decoding: changed, as: UTF8.self)), "digit \(index)")
        }
    }

    @Test("SQLite binds of strings, integers and booleans are the values SQLiteKit's encoder gives; other types go through it")
    func sqliteBinds() throws {
        let encoder = SQLiteDataEncoder()
        let values: [any Encodable] = [
            "text", "", "with\u{0}nul", 0, -7, Int.max, Int64.min, Int64(42), true, false, 1.5, Optional<String>.none,
            Optional("x"), Data([1, 2, 3]),
        ]
        for value in values {
            #expect(try SQLiteDirectSQL.sqliteData(value) == encoder.encode(value), "\(value)")
        }
    }

    @Test("A header's value found by walking the fields is the subscript's, for absent, single and repeated fields")
    func headerValue() throws {
        let custom = try #require(HTTPField.Name("X-Tessera-Client-Key"))
        let cases: [HTTPFields] = [
            [:],
            [.authorization: "Basic abc"],
            [.contentType: "application/json", .authorization: "Bearer x"],
            HTTPFields([HTTPField(name: .authorization, value: "Basic a"), HTTPField(name: .accept, value: "*/*"), HTTPField(name: .authorization, value: "Basic b")]),
            HTTPFields([HTTPField(name: try #require(HTTPField.Name("x-tessera-client-key")), value: "tck_1")]),
        ]
        for fields in cases {
            for name in [HTTPField.Name.authorization, .contentType, .contentLength, custom] {
                #expect(fields.value(name) == fields[name], "\(fields) \(name)")
            }
        }
        #expect(cases[3].value(.authorization) == "Basic a, Basic b")
        #expect(cases[4].value(custom) == "tck_1")
    }

    @Test("Structured-field members: commas inside strings and inner lists do not split, blanks around a member are dropped")
    func signatureMembers() {
        let header = #" other=("a, b" "c");x="1,2" ,"# + "\t" + #"tessera=("@method" "@path");created=5;keyid="k, 1" "#
        #expect(MessageSignature.member("tessera", in: header) == #"("@method" "@path");created=5;keyid="k, 1""#)
        #expect(MessageSignature.member("other", in: header) == #"("a, b" "c");x="1,2""#)
        #expect(MessageSignature.member("absent", in: header) == nil)
        #expect(MessageSignature.member("tessera", in: "tesseras=(), tessera=:AAA=:") == ":AAA=:")
    }
}
