import Foundation

/// RFC 4648 §5 base64url, as WebAuthn's JSON forms use it.
public enum Base64URL {
    /// Decodes base64url with or without padding; nil for anything else (standard base64's `+` and
    /// `/` included).
    public static func decode(_ text: String) -> [UInt8]? {
        var base64 = ""
        base64.reserveCapacity(text.utf8.count + 3)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "-": base64.append("+")
            case "_": base64.append("/")
            case "A"..."Z", "a"..."z", "0"..."9", "=": base64.unicodeScalars.append(scalar)
            default: return nil
            }
        }
        let unpadded = base64.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        guard unpadded.count % 4 != 1, !unpadded.contains("=") else { return nil }
        let padded = unpadded + String(repeating: "=", count: (4 - unpadded.count % 4) % 4)
        return Data(base64Encoded: padded).map { [UInt8]($0) }
    }

    /// Encodes without padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
