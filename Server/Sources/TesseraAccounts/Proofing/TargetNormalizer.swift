import Foundation
import TesseraCore

/// Normalises and validates OTP targets: e-mail addresses are trimmed and lower-cased, phone
/// numbers reduced to E.164 (`+` and 7–15 digits, no leading zero).
package enum TargetNormalizer {
    /// `field` names the request member in the problem answer.
    package static func normalize(_ target: String, channel: OTPChannel, field: String = "sendTarget") throws -> String {
        switch channel {
        case .email:
            guard let email = normalizeEmail(target) else {
                throw AppError.invalidEmail(field: field)
            }
            return email
        case .sms:
            guard let phone = normalizePhone(target) else {
                throw AppError.invalidPhoneNumber(field: field, detail: "Give the number in E.164 form, for example +41446681800")
            }
            return phone
        }
    }

    /// The characters an RFC 5322 dot-atom's atoms may hold (lower case: they are checked after lower-casing).
    private static let atext = Set("abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+/=?^_`{|}~-")

    /// `raw` without leading and trailing spaces and tabs (Foundation's `.whitespaces`); most targets
    /// have none and are taken as they are, without Foundation's bridged trimming.
    package static func trimmed(_ raw: String) -> String {
        let whitespace = CharacterSet.whitespaces
        guard let first = raw.unicodeScalars.first, let last = raw.unicodeScalars.last,
              whitespace.contains(first) || whitespace.contains(last)
        else { return raw }
        return raw.trimmingCharacters(in: whitespace)
    }

    /// A lower-cased address with an RFC 5321 dot-atom local part and a dotted ASCII domain, or nil.
    package static func normalizeEmail(_ raw: String) -> String? {
        let value = trimmed(raw).lowercased()
        guard value.utf8.count <= 254, value.allSatisfy(\.isASCII) else { return nil }
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let local = parts[0], domain = parts[1]
        guard (1...64).contains(local.count), !local.hasPrefix("."), !local.hasSuffix("."), !local.contains(".."),
              local.allSatisfy({ atext.contains($0) || $0 == "." })
        else { return nil }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, domain.count <= 253 else { return nil }
        for label in labels {
            guard (1...63).contains(label.count), !label.hasPrefix("-"), !label.hasSuffix("-"),
                  label.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" })
            else { return nil }
        }
        guard let tld = labels.last, tld.count >= 2, tld.allSatisfy(\.isLetter) || tld.hasPrefix("xn--") else { return nil }
        return value
    }

    /// `+` followed by 7–15 digits, the first not 0, after removing spaces, dots, dashes and parentheses.
    package static func normalizePhone(_ raw: String) -> String? {
        let stripped = trimmed(raw).filter { !" .-()".contains($0) }
        guard stripped.hasPrefix("+") else { return nil }
        let digits = stripped.dropFirst()
        guard (7...15).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits.first != "0" else {
            return nil
        }
        return stripped
    }
}
