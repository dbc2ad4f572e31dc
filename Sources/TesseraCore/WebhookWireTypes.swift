/// `POST /v1/admin/clients/{clientKey}/webhooks`: a new webhook endpoint of a client.
public struct CreateWebhookRequest: Codable, Sendable, Equatable {
    /// Where the events are POSTed (http(s); https in production unless loopback or `webhooks.allowHttp`).
    public var url: String
    /// The event types to send (`user.signed_up`, `login.completed`, …, or `*` for all).
    public var eventTypes: [String]

    public init(url: String, eventTypes: [String]) {
        self.url = url
        self.eventTypes = eventTypes
    }
}

/// `PATCH /v1/admin/webhooks/{endpointId}`: what to change (absent fields stay). Enabling an
/// endpoint clears its failure count.
public struct UpdateWebhookRequest: Codable, Sendable, Equatable {
    public var url: String?
    public var eventTypes: [String]?
    public var enabled: Bool?

    public init(url: String? = nil, eventTypes: [String]? = nil, enabled: Bool? = nil) {
        self.url = url
        self.eventTypes = eventTypes
        self.enabled = enabled
    }
}

/// A webhook endpoint as the admin API shows it: never its secret.
public struct WebhookEndpointView: Codable, Sendable, Equatable {
    /// `whe_…`.
    public var id: String
    /// The client's key.
    public var clientKey: String
    public var url: String
    public var eventTypes: [String]
    public var enabled: Bool
    /// Deliveries given up in a row (an endpoint is disabled after its first delivery is given up).
    public var failureCount: Int
    /// Why it was disabled (`retries-exhausted`, `admin`), when it is.
    public var disabledReason: String?
    /// Until when (ms) the previous secret still signs, after a rotation.
    public var previousSecretExpiresAt: Int64?
    public var createdAt: Int64

    public init(
        id: String, clientKey: String, url: String, eventTypes: [String], enabled: Bool, failureCount: Int, disabledReason: String?,
        previousSecretExpiresAt: Int64?, createdAt: Int64
    ) {
        self.id = id
        self.clientKey = clientKey
        self.url = url
        self.eventTypes = eventTypes
        self.enabled = enabled
        self.failureCount = failureCount
        self.disabledReason = disabledReason
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.createdAt = createdAt
    }
}

/// A created endpoint or a rotated secret: the `whsec_…` secret, shown this once.
public struct WebhookEndpointWithSecret: Codable, Sendable, Equatable {
    public var endpoint: WebhookEndpointView
    /// `whsec_<base64>`: the Standard Webhooks signing secret.
    public var secret: String

    public init(endpoint: WebhookEndpointView, secret: String) {
        self.endpoint = endpoint
        self.secret = secret
    }
}

/// `GET /v1/admin/clients/{clientKey}/webhooks`.
public struct WebhookEndpointList: Codable, Sendable, Equatable {
    public var endpoints: [WebhookEndpointView]

    public init(endpoints: [WebhookEndpointView]) { self.endpoints = endpoints }
}

/// One delivery of one event to one endpoint, with how it went so far.
public struct WebhookDeliveryView: Codable, Sendable, Equatable {
    /// `whd_…`.
    public var id: String
    /// The Standard Webhooks message ID (`webhook-id`, `msg_…`), the same on every retry.
    public var eventId: String
    public var eventType: String
    /// `pending`, `delivered`, `failed` (given up) or `cancelled` (the endpoint was disabled or changed).
    public var status: String
    public var attempts: Int
    /// The receiver's last HTTP status, if it answered.
    public var lastStatus: Int?
    public var lastError: String?
    public var nextAttemptAt: Int64?
    public var createdAt: Int64
    public var deliveredAt: Int64?

    public init(
        id: String, eventId: String, eventType: String, status: String, attempts: Int, lastStatus: Int?, lastError: String?,
        nextAttemptAt: Int64?, createdAt: Int64, deliveredAt: Int64?
    ) {
        self.id = id
        self.eventId = eventId
        self.eventType = eventType
        self.status = status
        self.attempts = attempts
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
    }
}

/// `GET /v1/admin/webhooks/{endpointId}/deliveries`: newest first; pass `nextBefore` as `before` for the next page.
public struct WebhookDeliveryPage: Codable, Sendable, Equatable {
    public var deliveries: [WebhookDeliveryView]
    public var nextBefore: String?

    public init(deliveries: [WebhookDeliveryView], nextBefore: String?) {
        self.deliveries = deliveries
        self.nextBefore = nextBefore
    }
}
