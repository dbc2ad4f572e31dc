/// How a client receives the outcome of its OpenID CIBA requests (CIBA Core 1.0 §5):
/// `GET`/`PUT /v1/admin/clients/{clientKey}/ciba`.
public struct CIBAClientSettings: Codable, Sendable, Equatable {
    /// `poll` (the default: the client polls the token endpoint) or `ping` (Tessera calls the client's
    /// notification endpoint when the user answered, then the client fetches the tokens).
    public var deliveryMode: String
    /// The client's `backchannel_client_notification_endpoint` for `ping`: https (plain http only to a loopback
    /// host), registered here so that a request can never make the server call another address.
    public var notificationEndpoint: String?
    /// CIBA's `backchannel_user_code_parameter`: each backchannel request must carry the user's `user_code`, their
    /// Tessera password (CIBA §7.1), before the phone is asked. Missing means false.
    public var userCodeRequired: Bool

    /// Creates the settings.
    public init(deliveryMode: String = "poll", notificationEndpoint: String? = nil, userCodeRequired: Bool = false) {
        self.deliveryMode = deliveryMode
        self.notificationEndpoint = notificationEndpoint
        self.userCodeRequired = userCodeRequired
    }

    enum CodingKeys: String, CodingKey { case deliveryMode, notificationEndpoint, userCodeRequired }

    /// `deliveryMode` left out is `poll`; an explicit `null` is refused.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        deliveryMode = try c.member(.deliveryMode, default: "poll")
        notificationEndpoint = try c.decodeIfPresent(String.self, forKey: .notificationEndpoint)
        userCodeRequired = try c.member(.userCodeRequired, default: false)
    }
}
