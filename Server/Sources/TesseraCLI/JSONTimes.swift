import Foundation

/// The CLI's `--json` times: the admin API sends times as numbers (milliseconds since 1970; a few as
/// seconds), the CLI prints them as ISO 8601.
enum JSONTimes {
    /// Whether a key names a time: `at`, or a name ending in `At` (`createdAt`, `revokedAt`, …).
    static func isTime(_ key: String) -> Bool {
        key == "at" || (key.hasSuffix("At") && key.count > 2)
    }

    /// A number of a time key as a date: milliseconds from 100000000000 on (1973), seconds below.
    static func date(_ number: NSNumber) -> Date? {
        let value = number.doubleValue
        guard value.rounded() == value, value > 0 else { return nil }
        return Date(timeIntervalSince1970: value >= 100_000_000_000 ? value / 1000 : value)
    }

    /// `object` (as JSONSerialization reads it) with the numbers of time keys as ISO 8601 strings.
    static func rewrite(_ object: Any) -> Any {
        if let dictionary = object as? [String: Any] {
            var out: [String: Any] = [:]
            for (key, value) in dictionary {
                if isTime(key), !(value is Bool), let number = value as? NSNumber, let date = date(number) {
                    out[key] = isoTime(date)
                } else {
                    out[key] = rewrite(value)
                }
            }
            return out
        }
        if let array = object as? [Any] { return array.map(rewrite) }
        return object
    }
}
