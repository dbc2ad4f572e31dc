import Foundation
import HTTPTypes

/// Finds the client's IP address behind trusted reverse proxies (`http.trustedProxies`).
///
/// The rule: when the socket peer is not a trusted proxy, the client is the socket peer and
/// forwarding headers are ignored (anyone can send them). When it is, the configured header
/// (`X-Forwarded-For`, or RFC 7239 `Forwarded: for=`) is walked from the right, skipping
/// addresses that are trusted proxies; the first untrusted address is the client. If every
/// address is trusted, the leftmost is the client. A header that is missing leaves the peer; one
/// whose walked part does not parse (garbage, `unknown`, obfuscated identifiers) falls back to the
/// peer, never to an error. Addresses come back in canonical form (`inet_ntop`), IPv4-mapped IPv6
/// addresses as IPv4, so that one client cannot appear under several spellings.
public struct ClientAddressResolver: Sendable {
    /// Which forwarding header the trusted proxies set.
    public enum Header: String, Sendable, CaseIterable {
        case xForwardedFor = "x-forwarded-for"
        case forwarded
    }

    /// An IPv4 or IPv6 address or CIDR range (`10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`).
    public struct AddressRange: Sendable, Equatable {
        let network: [UInt8]
        let prefixLength: Int

        /// Parses an address or range; nil when it is not one.
        public init?(_ text: String) {
            let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let address = ClientAddressResolver.parse(String(parts[0])) else { return nil }
            let maximum = address.count * 8
            var length = maximum
            if parts.count == 2 {
                guard parts[1].allSatisfy(\.isASCIIDigit), let value = Int(parts[1]), (0...maximum).contains(value) else { return nil }
                length = value
            }
            network = address
            prefixLength = length
        }

        /// Whether `address` (4 or 16 bytes) lies in the range.
        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == network.count else { return false }
            var remaining = prefixLength
            for (left, right) in zip(address, network) where remaining > 0 {
                let bits = min(remaining, 8)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if left & mask != right & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    /// The trusted proxies; empty means forwarding headers are never read.
    public let trustedProxies: [AddressRange]
    /// The one forwarding header that is read.
    public let header: Header

    /// A resolver trusting `trustedProxies` to set `header`.
    public init(trustedProxies: [AddressRange] = [], header: Header = .xForwardedFor) {
        self.trustedProxies = trustedProxies
        self.header = header
    }

    /// The client address for a request from socket peer `peer` carrying `headers`.
    public func resolve(peer: String?, headers: HTTPFields) -> String? {
        guard let peer else { return nil }
        guard let peerBytes = Self.parse(peer) else { return peer }
        let canonicalPeer = Self.format(peerBytes)
        guard isTrusted(peerBytes) else { return canonicalPeer }
        guard let name = HTTPField.Name(header.rawValue) else { return canonicalPeer }
        let lines = headers[fields: name].map(\.value)
        let hops: [String]
        switch header {
        case .xForwardedFor: hops = lines.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        case .forwarded: hops = lines.flatMap(Self.forwardedFor)
        }
        var leftmost: [UInt8]?
        for hop in hops.reversed() {
            guard let address = Self.parseHop(hop) else { return canonicalPeer }
            if !isTrusted(address) { return Self.format(address) }
            leftmost = address
        }
        return leftmost.map(Self.format) ?? canonicalPeer
    }

    func isTrusted(_ address: [UInt8]) -> Bool { trustedProxies.contains { $0.contains(address) } }

    /// The `for=` values of a `Forwarded` header line, left to right, one per element; an element
    /// without `for=` gives an empty value (which then does not parse).
    static func forwardedFor(_ line: String) -> [String] {
        splitOutsideQuotes(line, ",").map { element in
            for pair in splitOutsideQuotes(element, ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "for" else { continue }
                var value = parts[1].trimmingCharacters(in: .whitespaces)
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
                return value
            }
            return ""
        }
    }

    private static func splitOutsideQuotes(_ text: String, _ separator: Character) -> [String] {
        var parts: [String] = [], current = "", quoted = false
        for character in text {
            if character == "\"" { quoted.toggle() }
            if character == separator && !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts
    }

    /// One hop of a forwarding header: an address, optionally `[v6]`, `[v6]:port` or `v4:port`.
    static func parseHop(_ text: String) -> [UInt8]? {
        let hop = text.trimmingCharacters(in: .whitespaces)
        if hop.hasPrefix("[") {
            guard let close = hop.firstIndex(of: "]") else { return nil }
            let rest = hop[hop.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit) && rest.count > 1) else { return nil }
            let inner = String(hop[hop.index(after: hop.startIndex)..<close])
            guard inner.contains(":") else { return nil }
            return parse(inner)
        }
        if let address = parse(hop) { return address }
        // IPv4 with a port.
        let parts = hop.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty, parts[1].allSatisfy(\.isASCIIDigit), let address = parse(String(parts[0])), address.count == 4 else {
            return nil
        }
        return address
    }

    /// 4 bytes for IPv4 (also for an IPv4-mapped IPv6 address), 16 for IPv6; nil for anything else.
    static func parse(_ text: String) -> [UInt8]? {
        // Printable ASCII only: a NUL would end the C string early.
        guard !text.isEmpty, text.utf8.count <= 64, text.utf8.allSatisfy({ (0x21..<0x7F).contains($0) }) else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    /// The canonical text of an address from ``parse(_:)``.
    static func format(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil }
        guard ok else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
