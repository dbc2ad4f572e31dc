import Configuration
import Foundation
import Logging
import Synchronization
import Testing
@testable import TesseraServer
import TesseraServerTestSupport

/// `metrics.listen`, `metrics.token` and `log.format`: read from flags, and refused with a message
/// naming the key when wrong; the JSON log format writes one JSON object a line.
@Suite("Metrics and logs: configuration")
struct MetricsConfigurationTests {
    private func configuration(_ flags: [String]) throws -> ServerConfiguration {
        try ServerConfiguration(reader: ConfigReader(provider: CommandLineArgumentsProvider(arguments: ["tessera"] + flags)))
    }

    @Test("off by default; --metrics-listen, --metrics-token and --log-format are read")
    func flags() throws {
        let plain = try configuration([])
        #expect(plain.metricsListen == nil && plain.metricsToken == nil && plain.logFormat == .text)
        let set = try configuration(["--metrics-listen", "127.0.0.1:9464", "--log-format", "json"])
        #expect(set.metricsListen == MetricsListen(host: "127.0.0.1", port: 9464))
        #expect(set.logFormat == .json)
        let remote = try configuration(["--metrics-listen", "[::]:9464", "--metrics-token", "mt-secret"])
        #expect(remote.metricsListen == MetricsListen(host: "::", port: 9464) && remote.metricsToken == "mt-secret")
    }

    @Test("wrong values stop the configuration with a message naming the key", arguments: [
        (["--metrics-listen", "9464"], "metrics.listen"),
        (["--metrics-listen", "127.0.0.1:99999"], "metrics.listen"),
        (["--metrics-listen", "0.0.0.0:9464"], "needs metrics.token"),
        (["--metrics-token", "t"], "metrics.token needs metrics.listen"),
        (["--log-format", "yaml"], "log.format"),
    ])
    func refused(flags: [String], message: String) throws {
        do {
            _ = try configuration(flags)
            Issue.record("\(flags) was accepted")
        } catch let error as ConfigurationError {
            #expect(error.description.contains(message), "\(error)")
        }
    }

    @Test("a JSON log line has timestamp, level, label, message and the merged metadata")
    func jsonLine() throws {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "tessera.test") { label in
            JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        logger.logLevel = .debug
        logger[metadataKey: "request"] = "r1"
        logger.notice("message delivered \"quoted\"", metadata: ["attempt": .stringConvertible(2), "nodes": .array(["n1", "n2"])])
        logger.trace("below the level")
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(line.hasSuffix("\n") && !line.dropLast().contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "notice")
        #expect(object["label"] as? String == "tessera.test")
        #expect(object["message"] as? String == "message delivered \"quoted\"")
        let timestamp = try #require(object["timestamp"] as? String)
        #expect(timestamp.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(timestamp)")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["request"] as? String == "r1" && metadata["attempt"] as? String == "2")
        #expect(metadata["nodes"] as? [String] == ["n1", "n2"])
    }

    @Test("the timestamp is UTC with milliseconds")
    func timestamp() {
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 1_795_919_589.123)) == "2026-11-29T02:33:09.123Z")
    }
}
