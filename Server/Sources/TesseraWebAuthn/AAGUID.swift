/// An authenticator model's AAGUID (16 bytes) as text: 32 hex digits, with or without the dashes of
/// `fbfc3007-154e-4ecc-8c0b-6e020557d7bd`, in either case (the FIDO metadata, the admin's allowed models, the
/// bundled names), and back to 32 lowercase hex digits (what Tessera stores and shows).
public enum AAGUID {
    /// The 16 bytes of `text`; nil when it is not 32 hex digits (dashes aside).
    public static func bytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.replacingOccurrences(of: "-", with: "").unicodeScalars)
        guard digits.count == 32, digits.allSatisfy(\.properties.isASCIIHexDigit) else { return nil }
        return stride(from: 0, to: 32, by: 2).map { UInt8(String(String.UnicodeScalarView(digits[$0..<$0 + 2])), radix: 16)! }
    }

    /// 32 lowercase hex digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
