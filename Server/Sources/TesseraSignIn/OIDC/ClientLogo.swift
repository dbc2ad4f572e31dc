import Crypto
import Foundation
import TesseraCore

/// A client's logo on the hosted sign-in page: PNG, JPEG or WebP (never SVG, which can carry script), at
/// most ``maximumBytes``, its type checked against its first bytes, its pixel size within ``maximumSide``
/// where the format states it.
package struct ClientLogo: Sendable, Equatable {
    package let data: Data
    package let contentType: String
    /// Hex SHA-256 of the bytes: the page's URL carries its start, so a new logo is fetched anew.
    package let digest: String

    package static let maximumBytes = 64 * 1024
    package static let maximumSide = 1024
    package static let contentTypes = ["image/png", "image/jpeg", "image/webp"]

    /// Checks `data` against the declared `contentType` (parameters after `;` are ignored).
    package init(_ data: Data, contentType declared: String) throws {
        let type = declared.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard Self.contentTypes.contains(type) else {
            throw AppError.unsupportedMediaType(detail: "Send the logo as image/png, image/jpeg or image/webp")
        }
        guard !data.isEmpty, data.count <= Self.maximumBytes else {
            throw AppError.invalidField("logo", "the logo must be 1 byte to 64 KiB")
        }
        guard Self.sniff(data) == type else {
            throw AppError.invalidField("logo", "the logo's bytes are not a \(type) image")
        }
        if type == "image/png", Self.pngSize(data) == nil { throw AppError.invalidField("logo", "the PNG has no IHDR chunk where it must be") }
        if let (width, height) = Self.pngSize(data), width == 0 || height == 0 || width > Self.maximumSide || height > Self.maximumSide {
            throw AppError.invalidField("logo", "the logo must be at most \(Self.maximumSide)×\(Self.maximumSide) pixels")
        }
        self.data = data
        contentType = type
        digest = SHA256.hash(data: data).hexString
    }

    /// The image type that the bytes start with, nil for anything else.
    package static func sniff(_ data: Data) -> String? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.count == 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }

    /// A PNG's width and height from its IHDR chunk, nil if it has none where the format puts it.
    package static func pngSize(_ data: Data) -> (Int, Int)? {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        func int(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (int(16), int(20))
    }
}
