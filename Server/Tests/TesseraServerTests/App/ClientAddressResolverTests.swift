import HTTPTypes
import Testing
@testable import TesseraServer
import TesseraServerTestSupport

/// Which address is the client: forwarding headers count only from a trusted proxy, are walked
/// from the right past trusted hops, and fall back to the socket peer when they do not parse.
@Suite("Client address resolver")
struct ClientAddressResolverTests {
    static func resolver(_ proxies: [String], header: ClientAddressResolver.Header = .xForwardedFor) throws -> ClientAddressResolver {
        ClientAddressResolver(trustedProxies: try proxies.map { try #require(ClientAddressResolver.AddressRange($0), "\($0)") }, header: header)
    }

    static func headers(_ name: String, _ values: String...) throws -> HTTPFields {
        var fields = HTTPFields()
        let field = try #require(HTTPField.Name(name))
        for value in values { fields.append(HTTPField(name: field, value: value)) }
        return fields
    }

    @Test("no trusted proxies: the socket peer, whatever the headers say")
    func noProxies() throws {
        let resolver = ClientAddressResolver()
        #expect(resolver.resolve(peer: "198.51.100.7", headers: try Self.headers("X-Forwarded-For", "203.0.113.9")) == "198.51.100.7")
        #expect(resolver.resolve(peer: "198.51.100.7", headers: try Self.headers("Forwarded", "for=203.0.113.9")) == "198.51.100.7")
        #expect(resolver.resolve(peer: nil, headers: try Self.headers("X-Forwarded-For", "203.0.113.9")) == nil)
    }

    @Test("a spoofed header from an untrusted peer is ignored")
    func untrustedPeer() throws {
        let resolver = try Self.resolver(["10.0.0.0/8"])
        #expect(resolver.resolve(peer: "198.51.100.7", headers: try Self.headers("X-Forwarded-For", "10.1.1.1, 203.0.113.9")) == "198.51.100.7")
    }

    @Test("from a trusted proxy: the rightmost untrusted address, skipping trusted hops")
    func chains() throws {
        let resolver = try Self.resolver(["10.0.0.1", "192.168.0.0/16"])
        let peer = "10.0.0.1"
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("X-Forwarded-For", "203.0.113.9")) == "203.0.113.9")
        // The client put a spoofed address first; the proxy appended the real one.
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("X-Forwarded-For", "1.2.3.4, 203.0.113.9")) == "203.0.113.9")
        // Two proxies: the inner one's address is skipped.
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("X-Forwarded-For", "1.2.3.4, 203.0.113.9, 192.168.4.5")) == "203.0.113.9")
        // Several header lines are one list, in order.
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("X-Forwarded-For", "1.2.3.4", "203.0.113.9, 192.168.4.5")) == "203.0.113.9")
        // Only proxies: the leftmost; no header: the peer.
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("X-Forwarded-For", "192.168.1.1, 192.168.4.5")) == "192.168.1.1")
        #expect(resolver.resolve(peer: peer, headers: [:]) == peer)
        // Ports are dropped.
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("X-Forwarded-For", "203.0.113.9:5123")) == "203.0.113.9")
        // The other header is not read.
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("Forwarded", "for=203.0.113.9")) == peer)
    }

    @Test("RFC 7239 Forwarded: for= values, quoted, bracketed IPv6 with port, several elements")
    func forwarded() throws {
        let resolver = try Self.resolver(["10.0.0.1"], header: .forwarded)
        let peer = "10.0.0.1"
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("Forwarded", "for=203.0.113.9;proto=https")) == "203.0.113.9")
        #expect(
            resolver.resolve(peer: peer, headers: try Self.headers("Forwarded", #"for=1.2.3.4, for="[2001:DB8:0::1]:4711";by=10.0.0.1"#))
                == "2001:db8::1"
        )
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("Forwarded", "for=1.2.3.4", "For=10.0.0.1;proto=http")) == "1.2.3.4")
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("X-Forwarded-For", "203.0.113.9")) == peer)
        // Unknown and obfuscated identifiers are not addresses: the peer.
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("Forwarded", "for=unknown")) == peer)
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("Forwarded", "for=_hidden")) == peer)
        #expect(resolver.resolve(peer: peer, headers: try Self.headers("Forwarded", "proto=https")) == peer)
    }

    @Test("IPv6 peers, proxies and clients; IPv4-mapped addresses; canonical spelling")
    func ipv6() throws {
        let resolver = try Self.resolver(["fd00::/8", "::1", "127.0.0.1"])
        #expect(resolver.resolve(peer: "::1", headers: try Self.headers("X-Forwarded-For", "2001:0db8:0000::0001, fd12::3")) == "2001:db8::1")
        #expect(resolver.resolve(peer: "::1", headers: try Self.headers("X-Forwarded-For", "[2001:db8::2]:443")) == "2001:db8::2")
        // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d; they match IPv4 ranges and come back as IPv4.
        #expect(resolver.resolve(peer: "::ffff:127.0.0.1", headers: try Self.headers("X-Forwarded-For", "203.0.113.9")) == "203.0.113.9")
        #expect(resolver.resolve(peer: "::ffff:198.51.100.7", headers: [:]) == "198.51.100.7")
        // fe80:: is outside fd00::/8.
        #expect(resolver.resolve(peer: "fe80::1", headers: try Self.headers("X-Forwarded-For", "203.0.113.9")) == "fe80::1")
    }

    @Test("garbage falls back to the socket peer")
    func garbage() throws {
        let resolver = try Self.resolver(["10.0.0.1"])
        for value in ["", "not-an-ip", "203.0.113.9, ", "1.2.3.4.5", "203.0.113.9:port", "[203.0.113.9]", "[2001:db8::1", "::1]:80", "300.1.1.1",
                      String(repeating: "9", count: 5000), "２０３.0.113.9"] {
            #expect(resolver.resolve(peer: "10.0.0.1", headers: try Self.headers("X-Forwarded-For", value)) == "10.0.0.1", "\(value.prefix(40))")
        }
        // Garbage left of the client is never reached.
        #expect(resolver.resolve(peer: "10.0.0.1", headers: try Self.headers("X-Forwarded-For", "garbage, 203.0.113.9")) == "203.0.113.9")
    }

    @Test("ranges: CIDR edges for IPv4 and IPv6, and what is not a range")
    func ranges() throws {
        let v4 = try #require(ClientAddressResolver.AddressRange("172.16.0.0/12"))
        #expect(v4.contains(try #require(ClientAddressResolver.parse("172.31.255.255"))))
        #expect(!v4.contains(try #require(ClientAddressResolver.parse("172.32.0.0"))))
        #expect(!v4.contains(try #require(ClientAddressResolver.parse("::ffff:ac20:0"))))
        let v6 = try #require(ClientAddressResolver.AddressRange("2001:db8:abcd::/33"))
        // The 33rd bit is the top bit of abcd: the range is 2001:db8:8000::/33.
        #expect(v6.contains(try #require(ClientAddressResolver.parse("2001:db8:8000::1"))))
        #expect(!v6.contains(try #require(ClientAddressResolver.parse("2001:db8:7fff::1"))))
        #expect(try #require(ClientAddressResolver.AddressRange("0.0.0.0/0")).contains(try #require(ClientAddressResolver.parse("8.8.8.8"))))
        #expect(!(try #require(ClientAddressResolver.AddressRange("0.0.0.0/0")).contains(try #require(ClientAddressResolver.parse("::1")))))
        #expect(ClientAddressResolver.parse("203.0.113.9\u{0}") == nil)
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/+8", "10.0.0.0/8/8", "example.com", "", "10.0.0/8"] {
            #expect(ClientAddressResolver.AddressRange(bad) == nil, "\(bad)")
        }
    }
}
