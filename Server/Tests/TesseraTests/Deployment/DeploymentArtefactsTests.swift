import Foundation
import Testing
import TesseraTestSupport

/// The artefacts operators deploy (deploy/): the systemd units verified and scored by systemd itself, the Kubernetes
/// manifests rendered by kustomize and checked for what the guide promises, and the container image's Containerfile
/// checked (building it needs its Debian base image from a registry, which this machine cannot reach) together with
/// the health check it runs, `tessera probe`, against a live server.
@Suite("Deployment artefacts")
struct DeploymentArtefactsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../..").standardized

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("systemd: both units pass `systemd-analyze verify` (the ExecStart binary the built one) and score at most 2.0 (OK) with `systemd-analyze security`")
    func systemdUnits() async throws {
        let analyze = try TestRequirements.program("systemd-analyze", for: "checking the systemd units", debianPackage: "systemd")
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("units-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var units: [String] = []
        for name in ["tessera.service", "tessera-node.service"] {
            let unit = try Self.text("deploy/systemd/" + name)
            #expect(unit.contains("ExecStart=/usr/local/bin/tessera "), "\(name) runs the installed binary")
            for setting in ["DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes", "CapabilityBoundingSet=\n", "PrivateDevices=yes"] {
                #expect(unit.contains(setting), "\(name) sets \(setting)")
            }
            let path = directory.appendingPathComponent(name).path
            try unit.replacingOccurrences(of: "/usr/local/bin/tessera", with: binary.path).write(toFile: path, atomically: true, encoding: .utf8)
            units.append(path)
        }
        let verify = try await ChildProcess.run(analyze, ["verify", "--man=no"] + units)
        #expect(verify.status == 0 && !verify.output.contains(directory.path), "systemd-analyze verify: \(verify.output)")
        for unit in units {
            let security = try await ChildProcess.run(analyze, ["security", "--offline=true", "--no-pager", unit])
            let line = try #require(security.output.split(separator: "\n").last { $0.contains("Overall exposure level") }, "\(security.output)")
            let score = try #require(line.firstMatch(of: /: (\d+\.\d+)/).flatMap { Double($0.1) }, "\(line)")
            #expect(score <= 2.0, "\(unit): \(line)")
        }
    }

    @Test("Kubernetes: `kubectl kustomize` renders the server Deployment (replicas, /readyz and /healthz probes, secrets from a Secret, non-root, read-only root), PDB, HPA, NetworkPolicies, ServiceMonitor and the nodes' StatefulSet with volumes")
    func kubernetesManifests() async throws {
        let kubectl = try TestRequirements.program("kubectl", for: "rendering the Kubernetes manifests (kubectl kustomize, offline)", debianPackage: "kubectl")
        let rendered = try await ChildProcess.run(kubectl, ["kustomize", Self.root.appendingPathComponent("deploy/kubernetes").path])
        try #require(rendered.status == 0, "kubectl kustomize: \(rendered.output)")
        let documents = rendered.output.components(separatedBy: "\n---\n")
        func document(_ kind: String, _ name: String) -> String? {
            documents.first { $0.contains("kind: \(kind)\n") && $0.contains("  name: \(name)\n") }
        }
        let server = try #require(document("Deployment", "tessera"), "\(rendered.output)")
        for expected in ["replicas: 3", "path: /readyz", "path: /healthz", "runAsNonRoot: true", "readOnlyRootFilesystem: true",
                         "allowPrivilegeEscalation: false", "secretKeyRef:", "name: TESSERA_MASTER_KEY", "name: TESSERA_DATABASE_URL",
                         "name: TESSERA_ADMIN_TOKEN", "namespace: tessera", "type: RuntimeDefault"] {
            #expect(server.contains(expected), "the server Deployment has \(expected)")
        }
        #expect(!server.contains("value: tat_") && !server.contains("MASTER_KEY\n              value:"), "no secret in the manifests")
        let nodes = try #require(document("StatefulSet", "tessera-node"))
        #expect(nodes.contains("volumeClaimTemplates:") && nodes.contains("mountPath: /var/lib/tessera-node") && nodes.contains("TESSERA_NODE_SERVER_KEY"))
        for (kind, name) in [("PodDisruptionBudget", "tessera"), ("HorizontalPodAutoscaler", "tessera"), ("NetworkPolicy", "tessera-server"),
                             ("NetworkPolicy", "tessera-nodes"), ("ServiceMonitor", "tessera"), ("Service", "tessera"), ("Service", "tessera-node")] {
            #expect(document(kind, name) != nil, "the manifests have the \(kind) \(name)")
        }
    }

    @Test("container image: the Containerfile copies the release binary, runs as a non-root user, has a health check (`tessera probe`), and bakes in no secret; `tessera probe` exits 0 for a live /healthz, 1 for a 404 and 3 when nothing listens")
    func containerfile() async throws {
        let file = try Self.text("deploy/Containerfile")
        let instructions = file.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix(" ") && !$0.isEmpty }.map(String.init)
        #expect(instructions.first?.hasPrefix("FROM ") == true)
        #expect(instructions.contains { $0.hasPrefix("COPY") && $0.contains(".build-release/release/tessera ") }, "the binary scripts/build-release.sh makes")
        let user = try #require(instructions.last { $0.hasPrefix("USER ") })
        #expect(!user.contains("root") && !user.hasPrefix("USER 0"), "\(user)")
        #expect(instructions.contains { $0.hasPrefix("HEALTHCHECK") } && file.contains(#""/usr/local/bin/tessera", "probe", "http://127.0.0.1:8080/healthz""#))
        for secret in ["MASTER_KEY", "ADMIN_TOKEN", "DATABASE_URL", "PASSWORD"] {
            #expect(!instructions.contains { ($0.hasPrefix("ENV") || $0.hasPrefix("ARG")) && $0.contains(secret) }, "no \(secret) baked in")
        }
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        try await LiveServer.run(bundleId: "com.example.probe") { _, _, url in
            let base = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
            let healthy = try await ChildProcess.run(binary.path, ["probe", base + "/healthz"])
            #expect(healthy.status == 0, "\(healthy.output)")
            let missing = try await ChildProcess.run(binary.path, ["probe", base + "/no-such-page"])
            #expect(missing.status == 1 && missing.output.contains("HTTP 404"), "\(missing.output)")
        }
        let port = try NodeQuorumEndToEndTests.freePort()
        let nothing = try await ChildProcess.run(binary.path, ["probe", "http://127.0.0.1:\(port)/healthz", "--timeout", "2"])
        #expect(nothing.status == 3, "\(nothing.output)")
    }
}
