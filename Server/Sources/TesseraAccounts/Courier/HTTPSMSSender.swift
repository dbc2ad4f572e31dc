import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// SMS through an HTTP provider, Twilio-style: a form POST of `To`, `From` and `Body` with HTTP
/// basic authentication. Any 2xx answer counts as accepted.
public struct HTTPSMSSender: MessageSender {
    public struct Settings: Sendable {
        public var url: String
        public var from: String
        public var username: String?
        public var password: String?
        public var timeout: Duration = .seconds(10)

        package init(
            url: String,
            from: String,
            username: String? = nil,
            password: String? = nil,
            timeout: Duration = .seconds(10)
        ) {
            self.url = url
            self.from = from
            self.username = username
            self.password = password
            self.timeout = timeout
        }
    }

    package let settings: Settings
    package let httpClient: HTTPClient

    package init(settings: Settings, httpClient: HTTPClient) {
        self.settings = settings
        self.httpClient = httpClient
    }

    public func send(_ message: OutboundMessage) async throws {
        var request = HTTPClientRequest(url: settings.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        if let username = settings.username {
            let credentials = Data("\(username):\(settings.password ?? "")".utf8).base64EncodedString()
            request.headers.add(name: "Authorization", value: "Basic \(credentials)")
        }
        let form = [("To", message.recipient), ("From", settings.from), ("Body", message.body)]
            .map { "\($0.0)=\(Self.formEncode($0.1))" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await httpClient.execute(request, timeout: .milliseconds(settings.timeout.millis))
        guard (200..<300).contains(response.status.code) else {
            throw SMSProviderError(status: Int(response.status.code))
        }
    }

    package static func formEncode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "").replacingOccurrences(of: "%20", with: "+")
    }
}

package struct SMSProviderError: Error, CustomStringConvertible {
    package let status: Int
    package var description: String { "SMS provider answered HTTP \(status)" }
}
