/// The address of the metrics listener (`metrics.listen`): `host:port`, or `[v6]:port`.
public struct MetricsListen: Sendable, Equatable {
    public var host: String
    public var port: Int

    /// An address; port 0 asks for any free port (tests).
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port` (port 1–65535); nil when it is not one.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        self.init(host: host, port: port)
    }

    /// Whether only this machine can reach it (`127.0.0.0/8`, `::1`, `localhost`).
    public var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }
}
