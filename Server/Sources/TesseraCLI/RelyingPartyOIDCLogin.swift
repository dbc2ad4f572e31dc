import ArgumentParser
import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import TesseraCore
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `tessera rp oidc-login`: a minimal OpenID Connect relying party (authorization-code flow with
/// PKCE S256, `state` and `nonce`) that prints the sign-in URL, takes the redirect on a loopback
/// port, exchanges the code with `client_secret_basic` and prints the verified ID token's claims.
struct RelyingPartyOIDCLogin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oidc-login",
        abstract: "Sign in through the OpenID Connect provider: print the URL, wait for the redirect on a loopback port, exchange the code and print the verified ID token claims."
    )
    @Option(help: "The provider's issuer URL (its discovery document is <issuer>/.well-known/openid-configuration).") var issuer: String
    @Option(help: "Client ID (the client key).") var clientId: String
    @Option(help: "Client secret (or TESSERA_CLIENT_SECRET).") var clientSecret: String?
    @Option(help: "Loopback port for the redirect http://127.0.0.1:<port>/callback (0: any free port; register the URI with `tessera admin client oidc set`).")
    var redirectPort = 0
    @Option(help: "Scopes asked for.") var scope = "openid email"
    @Option(help: "Where to reach the provider when it is not at the issuer URL (e.g. its loopback address): discovery and endpoints keep their paths.")
    var server: String?
    @Option(help: "Seconds to wait for the redirect.") var timeout = 300

    /// The token endpoint's answer (RFC 6749 §5.1, OIDC Core §3.1.3.3).
    struct TokenResponse: Decodable {
        var idToken: String
        var tokenType: String?
        enum CodingKeys: String, CodingKey {
            case idToken = "id_token"
            case tokenType = "token_type"
        }
    }

    /// The part of the discovery document the flow needs (OIDC Discovery 1.0 §3).
    struct Metadata: Decodable {
        var issuer: String
        var authorizationEndpoint: String
        var tokenEndpoint: String
        var jwksUri: String
        enum CodingKeys: String, CodingKey {
            case issuer
            case authorizationEndpoint = "authorization_endpoint"
            case tokenEndpoint = "token_endpoint"
            case jwksUri = "jwks_uri"
        }
    }

    func run() async throws {
        guard let secret = clientSecret ?? ProcessInfo.processInfo.environment["TESSERA_CLIENT_SECRET"] else {
            throw ValidationError("give --client-secret or TESSERA_CLIENT_SECRET")
        }
        guard (0...65_535).contains(redirectPort) else { throw ValidationError("--redirect-port must be 0…65535") }
        let issuer = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let metadata: Metadata = try Self.json(try await Self.get(reach(issuer + "/.well-known/openid-configuration")))
        // OIDC Discovery §4.3: the document's issuer must be the one asked for.
        guard metadata.issuer == issuer else { throw CLIFailure.local("the discovery document names issuer \(metadata.issuer), not \(issuer)") }

        let listener = try LoopbackCallbackListener(port: redirectPort, path: "/callback")
        let redirectURI = "http://127.0.0.1:\(listener.port)/callback"
        let verifier = PKCE.randomToken(), state = PKCE.randomToken(byteCount: 16), nonce = PKCE.randomToken(byteCount: 16)
        let challenge = PKCE.challenge(of: verifier)
        guard var authorize = URLComponents(string: reach(metadata.authorizationEndpoint)) else {
            throw CLIFailure.local("bad authorization endpoint \(metadata.authorizationEndpoint)")
        }
        authorize.queryItems = (authorize.queryItems ?? []) + [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientId),
            URLQueryItem(name: "redirect_uri", value: redirectURI), URLQueryItem(name: "scope", value: scope),
            URLQueryItem(name: "state", value: state), URLQueryItem(name: "nonce", value: nonce),
            URLQueryItem(name: "code_challenge", value: challenge), URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        // `+` is a space in a query; URLComponents leaves it as it is.
        let authorizeURL = (authorize.string ?? "").replacingOccurrences(of: "+", with: "%2B")
        print("open this URL in a browser to sign in:\n\(authorizeURL)")
        print("waiting for the redirect to \(redirectURI)")
        fflush(nil)

        guard let query = try await listener.waitForCallback(timeout: .seconds(timeout)) else { throw CLIFailure.local("no redirect within \(timeout) s") }
        guard query["state"] == state else { throw CLIFailure.local("the redirect's state does not match the one sent: not this sign-in") }
        if let error = query["error"] {
            throw CLIFailure(status: CLIFailure.refused, message: "refused: \(error)\(query["error_description"].map { ": \($0)" } ?? "")")
        }
        guard let code = query["code"] else { throw CLIFailure.local("the redirect carries neither code nor error") }

        var exchange = HTTPClientRequest(url: reach(metadata.tokenEndpoint))
        exchange.method = .POST
        // RFC 6749 §2.3.1: ID and secret form-encoded, then Basic.
        let basic = Data("\(PKCE.formEncoded(clientId)):\(PKCE.formEncoded(secret))".utf8).base64EncodedString()
        exchange.headers.add(name: "Authorization", value: "Basic \(basic)")
        exchange.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let form = ["grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI, "code_verifier": verifier]
        exchange.body = .bytes(ByteBuffer(string: form.map { "\($0.key)=\(PKCE.formEncoded($0.value))" }.sorted().joined(separator: "&")))
        let (status, body) = try await Self.send(exchange)
        guard status == 200, let tokens = try? JSONDecoder().decode(TokenResponse.self, from: body) else {
            let error = (try? JSONDecoder().decode([String: String].self, from: body)).map { "\($0["error"] ?? "?"): \($0["error_description"] ?? "")" }
            throw CLIFailure(status: CLIFailure.refused, message: "refused: token endpoint answered HTTP \(status)\(error.map { " \($0)" } ?? "")")
        }

        let claims = try await verify(tokens.idToken, metadata: metadata, nonce: nonce)
        print("ID token verified: ES256 signature through the JWKS, iss, aud, exp, nonce")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        print(String(decoding: try encoder.encode(claims), as: UTF8.self))
    }

    /// Checks the ID token: ES256 and a signature by a key of the JWKS, then `iss`, `aud`, `exp` and `nonce`.
    private func verify(_ token: String, metadata: Metadata, nonce: String) async throws -> OIDCLoginClaims {
        let header = token.split(separator: ".", omittingEmptySubsequences: false).first.flatMap { Self.base64URLDecoded(String($0)) }
        let alg = header.flatMap { try? JSONDecoder().decode([String: String].self, from: $0) }?["alg"]
        guard alg == "ES256" else { throw CLIFailure.local("the ID token is signed \(alg ?? "without alg"), not ES256") }
        let (status, jwks) = try await Self.get(reach(metadata.jwksUri))
        guard status == 200 else { throw CLIFailure.local("the JWKS answered HTTP \(status)") }
        let keys = try await JWTKeyCollection().add(jwksJSON: String(decoding: jwks, as: UTF8.self))
        let claims: OIDCLoginClaims
        do {
            claims = try await keys.verify(token, as: OIDCLoginClaims.self)
        } catch {
            throw CLIFailure.local("the ID token does not verify: \(error)")
        }
        guard claims.iss.value == metadata.issuer else { throw CLIFailure.local("the ID token's iss is \(claims.iss.value), not \(metadata.issuer)") }
        guard claims.aud.value.contains(clientId) else { throw CLIFailure.local("the ID token is not for \(clientId)") }
        guard claims.nonce == nonce else { throw CLIFailure.local("the ID token's nonce does not match the one sent") }
        return claims
    }

    /// `url` at `--server` when given (same path and query), else as it is.
    private func reach(_ url: String) -> String {
        guard let server, var target = URLComponents(string: url), let base = URLComponents(string: server) else { return url }
        target.scheme = base.scheme
        target.host = base.host
        target.port = base.port
        return target.string ?? url
    }

    private static func get(_ url: String) async throws -> (Int, Data) { try await send(HTTPClientRequest(url: url)) }

    private static func send(_ request: HTTPClientRequest) async throws -> (Int, Data) {
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        return (Int(response.status.code), Data(try await response.body.collect(upTo: 1 << 20).readableBytesView))
    }

    private static func json<T: Decodable>(_ answer: (Int, Data)) throws -> T {
        guard answer.0 == 200, let value = try? JSONDecoder().decode(T.self, from: answer.1) else {
            throw CLIFailure.local("the discovery document could not be read (HTTP \(answer.0))")
        }
        return value
    }

    static func base64URLDecoded(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
