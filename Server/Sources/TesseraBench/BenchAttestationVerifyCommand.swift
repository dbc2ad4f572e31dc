import ArgumentParser
import Crypto
import Foundation
import TesseraWebAuthn
import X509

extension BenchCommand {
    /// `tessera-bench verify-attestation`: the CPU of App Attest's attestation check alone, in this process (no HTTP,
    /// no database): one attestation object minted by bench/appattest_mint.py under its test root (a P-384 root and
    /// intermediate, a P-256 credential certificate, as Apple's), verified `--count` times without and with the anchor
    /// cache. Prints one `VERIFY {…}` JSON line per mode. For profiling the verifier (issue 41's 1 ms per enrolment).
    struct VerifyAttestation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-attestation", abstract: "CPU per App Attest attestation check, in process, without and with the anchor cache."
        )
        @Option(help: "Python with `cryptography` and `cbor2`.") var python = "python3"
        @Option(help: "bench/appattest_mint.py.") var minter: String
        @Option(help: "The directory `appattest_mint.py init` wrote.") var caDir: String
        @Option(help: "Checks per mode.") var count = 2000

        func run() async throws {
            let minter = try AttestationMinter(python: python, script: minter, caDir: caDir, environment: "development")
            defer { minter.stop() }
            let key = P256.Signing.PrivateKey(), challenge = Array(SHA256.hash(data: Data("bench challenge".utf8)))
            let object = Array(try minter.attestationObject(privateKey: key.rawRepresentation, clientDataHash: Data(SHA256.hash(data: challenge))))
            let keyId = Array(SHA256.hash(data: key.publicKey.x963Representation))
            let root = try Certificate(pemEncoded: String(contentsOfFile: (caDir as NSString).appendingPathComponent("root.pem"), encoding: .utf8))
            let app = AppAttestApp(teamID: "TESTTEAM42", bundleID: "org.example.tessera", environment: .development)
            for (mode, cache) in [("full chain", nil), ("anchor cache", AppAttestAnchorCache())] as [(String, AppAttestAnchorCache?)] {
                let verifier = AppAttestVerifier(app: app, trustedRoots: [root], anchorCache: cache)
                _ = try await verifier.verifyAttestation(object, keyId: keyId, challenge: challenge, time: Date())
                let cpu = ServerCPU(pids: [getpid()]), before = cpu.seconds(), start = ContinuousClock.now
                for _ in 0..<count { _ = try await verifier.verifyAttestation(object, keyId: keyId, challenge: challenge, time: Date()) }
                let used = cpu.seconds() - before, wall = (ContinuousClock.now - start).inSeconds
                print(String(
                    format: #"VERIFY {"mode":"%@","count":%d,"cpu_ms_per_check":%.4f,"wall_ms_per_check":%.4f}"#, mode, count,
                    used * 1000 / Double(count), wall * 1000 / Double(count)
                ))
            }
        }
    }
}
