import Foundation

/// How the hosted page presents the application: its display name, accent colour and logo.
package struct ClientBranding: Sendable, Equatable {
    /// The name in "Sign in to …" and "Back to …".
    package var name: String
    /// `#rrggbb`, checked by ``contrastWithWhite(_:)`` when it was set.
    package var accentColor: String
    /// The logo's path on this server, nil when the client has none.
    package var logoPath: String?

    /// Tessera's own blue (contrast 6.6:1 with white).
    package static let defaultAccent = "#0b57d0"
    /// The accent colour is text on white and the background of white text: WCAG 2.x AA for normal text.
    package static let minimumContrast = 4.5

    package init(name: String, accentColor: String? = nil, logoPath: String? = nil) {
        self.name = name
        self.accentColor = accentColor.flatMap { Self.rgb($0) == nil ? nil : $0.lowercased() } ?? Self.defaultAccent
        self.logoPath = logoPath
    }

    /// The branding of a client with these settings: its display name (else `clientName`), accent colour and logo.
    package init(clientName: String, clientKey: String, settings: OIDCClientSettings?) {
        let logo = settings?.logoDigest.map { "/oauth2/logo/\(clientKey.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "")?v=\($0.prefix(16))" }
        self.init(name: settings?.displayName ?? clientName, accentColor: settings?.accentColor, logoPath: logo)
    }

    /// RFC 3986 §2.3: what a path segment carries as it is.
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// The red, green and blue of `#rrggbb` (0–255 each), nil for anything else.
    package static func rgb(_ color: String) -> (Int, Int, Int)? {
        let hex = color.utf8
        guard hex.count == 7, color.first == "#", let value = Int(color.dropFirst(), radix: 16), !color.dropFirst().contains("+"),
              !color.dropFirst().contains("-")
        else { return nil }
        return (value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF)
    }

    /// WCAG 2.x contrast ratio of the colour against white (1…21); nil when it is not `#rrggbb`.
    package static func contrastWithWhite(_ color: String) -> Double? {
        guard let (red, green, blue) = rgb(color) else { return nil }
        func linear(_ channel: Int) -> Double {
            let value = Double(channel) / 255
            return value <= 0.03928 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        let luminance = 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
        return 1.05 / (luminance + 0.05)
    }

    /// Why a display name or accent colour cannot be used, nil when both can.
    package static func problem(displayName: String?, accentColor: String?) -> (field: String, detail: String)? {
        if let name = displayName {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            // At most 60 code points, as the schema's maxLength counts them (not 60 grapheme clusters).
            if trimmed.isEmpty || trimmed != name || name.unicodeScalars.count > 60
                || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                return ("displayName", "displayName must be 1–60 characters, without control characters or surrounding spaces")
            }
        }
        if let color = accentColor {
            guard let contrast = contrastWithWhite(color) else { return ("accentColor", "accentColor must be #rrggbb") }
            guard contrast >= minimumContrast else {
                return ("accentColor", "accentColor \(color) has a contrast of \(String(format: "%.1f", contrast)):1 with white; at least 4.5:1 is needed (WCAG AA)")
            }
        }
        return nil
    }
}
