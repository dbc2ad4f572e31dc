import Crypto
import Foundation
import NIOPosix
import _CryptoExtras

/// Password hashing for identities that set one: scrypt (r = 8, p = 1, N = 2^logN; `passwords.scryptLogN`,
/// default 15 ≈ 32 MiB and tens of milliseconds here) over an HMAC of the password under a server key
/// (a pepper that lives only in the sealed key store), with a random 16-byte salt. Stored as
/// `scrypt$<logN>$<r>$<p>$<salt>$<hash>` (base64). Runs on NIO's thread pool, off the async executors.
package struct PasswordHasher: Sendable {
    package let pepper: SecretHasher
    package let random: RandomSource
    package var logN = 15

    package static let domain = "password-pepper"

    /// A hasher peppering with `pepper`, salting from `random`, at scrypt cost 2^`logN`.
    package init(pepper: SecretHasher, random: RandomSource, logN: Int = 15) {
        self.pepper = pepper
        self.random = random
        self.logN = logN
    }

    private static func derive(_ peppered: String, salt: Data, logN: Int, r: Int, p: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Data(peppered.utf8), salt: salt, outputByteCount: 32, rounds: 1 << logN, blockSize: r, parallelism: p
        )
        return key.withUnsafeBytes { Data($0) }
    }

    /// The stored form of `password`.
    package func hash(_ password: String) async throws -> String {
        let peppered = pepper.hash(password, domain: Self.domain), salt = Data(random.bytes(16)), logN = self.logN
        let derived = try await NIOThreadPool.singleton.runIfActive { try Self.derive(peppered, salt: salt, logN: logN, r: 8, p: 1) }
        return "scrypt$\(logN)$8$1$\(salt.base64EncodedString())$\(derived.base64EncodedString())"
    }

    /// Whether `password` matches `stored`, compared in constant time. A malformed `stored` never matches.
    package func verify(_ password: String, against stored: String) async throws -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let logN = Int(parts[1]), let r = Int(parts[2]), let p = Int(parts[3]),
              (10...20).contains(logN), (1...16).contains(r), (1...4).contains(p),
              let salt = Data(base64Encoded: parts[4]), let expected = Data(base64Encoded: parts[5])
        else { return false }
        let peppered = pepper.hash(password, domain: Self.domain)
        let derived = try await NIOThreadPool.singleton.runIfActive { try Self.derive(peppered, salt: salt, logN: logN, r: r, p: p) }
        return constantTimeEquals(Array(derived), Array(expected))
    }

    /// Spends the time of one verification, so an unknown identity answers as slowly as a wrong password.
    package func burn(_ password: String) async throws {
        _ = try await verify(password, against: "scrypt$\(logN)$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
    }
}
