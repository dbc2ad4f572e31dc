/// How log lines are written (`log.format`).
public enum LogFormat: String, Sendable {
    /// swift-log's default lines.
    case text
    /// One JSON object a line (``JSONLogHandler``).
    case json
}
