import ArgumentParser
import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import TesseraCore

/// `tessera rp …`: plays the app's backend (the relying party) with the client key and secret.
struct RelyingPartyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rp", abstract: "Act as a relying party (an app's backend) against a Tessera server.",
        subcommands: [Authenticate.self, RelyingPartyOIDCLogin.self]
    )

    struct Authenticate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "authenticate",
            abstract: "Ask a user's device to authenticate, wait for the outcome, verify the result token through the JWKS and print its claims."
        )
        @Option(help: "Server URL.") var server = "http://127.0.0.1:8080"
        @Option(help: "Client key of the app.") var clientKey: String
        @Option(help: "Client secret (or TESSERA_CLIENT_SECRET).") var clientSecret: String?
        @Option(help: "The user to authenticate.") var userKey: String
        @Option(help: "Address shown on the device as the one logging in.") var connectIp = "127.0.0.1"
        @Option(help: "Message shown on the device.") var message = "Log in with tessera rp"
        @Option(help: "Seconds to wait for the outcome.") var timeout = 120
        @Flag(help: "Number matching: print two digits to show the user, who must pick them on the device.") var numberMatching = false

        func run() async throws {
            guard let secret = clientSecret ?? ProcessInfo.processInfo.environment["TESSERA_CLIENT_SECRET"] else {
                throw ValidationError("give --client-secret or TESSERA_CLIENT_SECRET")
            }
            let base = server.hasSuffix("/") ? String(server.dropLast()) : server
            let basic = "Basic " + Data("\(clientKey):\(secret)".utf8).base64EncodedString()
            func call(_ method: String, _ path: String, body: (some Encodable)?) async throws -> (Int, Data) {
                var request = HTTPClientRequest(url: base + path)
                request.method = .init(rawValue: method)
                request.headers.add(name: "Authorization", value: basic)
                if let body {
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
                }
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(90))
                return (Int(response.status.code), Data(try await response.body.collect(upTo: 1 << 20).readableBytesView))
            }
            func fail(_ status: Int, _ data: Data) -> Error { CLIFailure(status: status, problem: data) }

            let (status, data) = try await call("POST", "/v1/rp/auth-requests", body: RPAuthRequest(
                userKey: userKey, connectIp: connectIp, message: message, numberMatching: numberMatching
            ))
            guard status == 201, var state = try? JSONDecoder().decode(RPAuthState.self, from: data) else { throw fail(status, data) }
            if let number = state.matchNumber { print("number matching: show the user \(number) (tessera device approve --number \(number))") }
            print("request \(state.requestId) sent to \(userKey)'s device; waiting (approve with `tessera device approve`)")
            let deadline = Date().addingTimeInterval(TimeInterval(timeout))
            while !state.outcome.isFinal, Date() < deadline {
                let (status, data) = try await call("GET", "/v1/rp/auth-requests/\(state.requestId)?wait=25", body: Optional<RPAuthRequest>.none)
                guard status == 200, let next = try? JSONDecoder().decode(RPAuthState.self, from: data) else { throw fail(status, data) }
                state = next
            }
            guard state.outcome == .completed, let token = state.token else {
                print("outcome: \(state.outcome.rawValue)\(state.code.map { " (code \($0) \(ErrorCode(rawValue: $0).name))" } ?? "")")
                guard state.outcome.isFinal else { throw CLIFailure.local("no outcome within \(timeout) s") }
                throw CLIFailure(status: CLIFailure.refused, message: "refused: the authentication ended \(state.outcome.rawValue)")
            }
            let (jwksStatus, jwks) = try await call("GET", "/.well-known/jwks.json", body: Optional<RPAuthRequest>.none)
            guard jwksStatus == 200 else { throw fail(jwksStatus, jwks) }
            let keys = try await JWTKeyCollection().add(jwksJSON: String(decoding: jwks, as: UTF8.self))
            let claims = try await keys.verify(token, as: RelyingPartyClaims.self)
            guard claims.aud.value.contains(clientKey), claims.sub.value == userKey else {
                throw CLIFailure.local("the token names another user or app")
            }
            print("outcome: completed; result token verified with the server's JWKS")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(claims), as: UTF8.self))
        }
    }
}
