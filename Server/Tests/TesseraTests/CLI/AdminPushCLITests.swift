import Foundation
import Testing
import TesseraCore
@testable import TesseraServer

/// `tessera admin client push …` against a running server: the key file is sent once and never
/// printed; show prints the settings without it; remove turns pushes off.
@Suite("CLI: tessera admin client push")
struct AdminPushCLITests {
    @Test("set-apns reads the .p8 file, show never prints the key, remove deletes the settings; a bad key is refused with 8001")
    func apnsSettingsThroughTheCLI() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serve { _, admin, _ in
            let created = try await DeviceCLITests.run(tessera, ["admin", "client", "create", "--name", "Push", "--bundle-id", "com.example.push"] + admin)
            #expect(created.status == 0, "\(created.output)")
            let clientKey = String(try #require(created.output.firstMatch(of: /client key:\s+(tck_\S+)/)?.1))
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let keyFile = directory.appendingPathComponent("AuthKey_ABC123DEFG.p8")
            // A throwaway P-256 key made for this test (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256).
            let pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg4fgzieAwG0/6kzdx\nfnD45/VRBWI/88lRYDD2WSCStRihRANCAATGScNQhq8OvqbObqTauG563WxRypdf\nFscGfxAHuuVJMcqNSY+dBHS9Hi/3u5Tv0omlsWnqGynk8eaPDMFWCllX\n-----END PRIVATE KEY-----\n"
            try pem.write(to: keyFile, atomically: true, encoding: .utf8)
            let set = try await DeviceCLITests.run(tessera, [
                "admin", "client", "push", "set-apns", clientKey, "--team-id", "TEAM123456", "--key-id", "ABC123DEFG",
                "--key-file", keyFile.path, "--topic", "com.example.push", "--environment", "sandbox",
            ] + admin)
            #expect(set.status == 0, "\(set.output)")
            #expect(set.output.contains("TEAM123456") && set.output.contains("sandbox"), "\(set.output)")
            let show = try await DeviceCLITests.run(tessera, ["admin", "client", "push", "show", clientKey, "--json"] + admin)
            #expect(show.status == 0, "\(show.output)")
            #expect(show.output.contains("\"hasKey\" : true") || show.output.contains("\"hasKey\":true"), "\(show.output)")
            for output in [set.output, show.output] {
                #expect(!output.contains("PRIVATE KEY") && !output.contains("fnD45/VRBWI"))
            }
            try "-----BEGIN PRIVATE KEY-----\nbroken\n-----END PRIVATE KEY-----\n".write(to: keyFile, atomically: true, encoding: .utf8)
            let bad = try await DeviceCLITests.run(tessera, [
                "admin", "client", "push", "set-apns", clientKey, "--team-id", "T", "--key-id", "K", "--key-file", keyFile.path, "--topic", "t",
            ] + admin)
            #expect(bad.status == 1 && bad.output.contains("8001"), "\(bad.output)")
            let removed = try await DeviceCLITests.run(tessera, ["admin", "client", "push", "remove", clientKey] + admin)
            #expect(removed.status == 0, "\(removed.output)")
            let gone = try await DeviceCLITests.run(tessera, ["admin", "client", "push", "show", clientKey] + admin)
            #expect(gone.status == 0 && gone.output.contains("no push settings"), "\(gone.output)")
            let again = try await DeviceCLITests.run(tessera, ["admin", "client", "push", "remove", clientKey] + admin)
            #expect(again.status == 0, "\(again.output)")
        }
    }

    @Test("set-unifiedpush stores the allowed endpoint prefixes and show lists them; a prefix that is not an http(s) URL is refused with 8001")
    func unifiedPushSettingsThroughTheCLI() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serve { _, admin, _ in
            let created = try await DeviceCLITests.run(tessera, ["admin", "client", "create", "--name", "Push", "--bundle-id", "com.example.push"] + admin)
            let clientKey = String(try #require(created.output.firstMatch(of: /client key:\s+(tck_\S+)/)?.1))
            let set = try await DeviceCLITests.run(tessera, [
                "admin", "client", "push", "set-unifiedpush", clientKey, "--allow", "https://ntfy.example.com/", "--allow", "http://127.0.0.1:",
            ] + admin)
            #expect(set.status == 0, "\(set.output)")
            #expect(set.output.contains("unifiedpush") && set.output.contains("allowed:      https://ntfy.example.com/"), "\(set.output)")
            let show = try await DeviceCLITests.run(tessera, ["admin", "client", "push", "show", clientKey, "--json"] + admin)
            let view = try JSONDecoder().decode(PushSettingsView.self, from: Data(show.output.utf8))
            #expect(view.provider == .unifiedpush && view.allowedEndpoints == ["https://ntfy.example.com/", "http://127.0.0.1:"] && !view.hasKey)
            let bad = try await DeviceCLITests.run(tessera, ["admin", "client", "push", "set-unifiedpush", clientKey, "--allow", "ntfy.example.com"] + admin)
            #expect(bad.status == 1 && bad.output.contains("8001"), "\(bad.output)")
            let none = try await DeviceCLITests.run(tessera, ["admin", "client", "push", "set-unifiedpush", clientKey] + admin)
            #expect(none.status == 2, "\(none.output)")
        }
    }
}
