/// `POST /v1/admin/clients/{clientKey}/webhooks`: a new webhook endpoint of a client.
public struct CreateWebhookRequest: Codable, Sendable, Equatable {
    /// Where the events are POSTed (http(s); https in production unless loopback or `webhooks.allowHttp`).
    public var url: String
    /// The event types to send (`user.signed_up`, `login.completed`, …, or `*` for all).
    public var eventTypes: [String]

    /// Creates a request for an endpoint at `url` that receives `eventTypes`.
    public init(url: String, eventTypes: [String]) {
        self.url = url
        self.eventTypes = eventTypes
    }
}

/// `PATCH /v1/admin/webhooks/{endpointId}`: what to change (absent fields stay). Enabling an
/// endpoint clears its failure count.
public struct UpdateWebhookRequest: Codable, Sendable, Equatable {
    /// The new URL, checked as at creation (absolute http(s), no user or password, at most 2000
    /// characters; https in production unless loopback or `webhooks.allowHttp`); absent: unchanged.
    public var url: String?
    /// The new event types (1 to 50 known types, `family.*` or `*`; duplicates dropped), replacing the
    /// old list; absent: unchanged.
    public var eventTypes: [String]?
    /// `true` enables the endpoint and clears its failure count and disabled reason; `false` disables it
    /// with the reason `admin`; absent: unchanged.
    public var enabled: Bool?

    /// Creates a change; a field left nil stays as it is.
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
    /// Where the events are POSTed.
    public var url: String
    /// The event types it receives, as given without duplicates (patterns such as `login.*` or `*` stay patterns).
    public var eventTypes: [String]
    /// Whether events are delivered to it: false once an admin disabled it or a delivery was given up
    /// (``WebhookEndpointView/disabledReason`` says which).
    public var enabled: Bool
    /// Failed attempts since the endpoint's last successful delivery (or since it was last enabled). The
    /// endpoint is disabled when a delivery is given up, not at a count.
    public var failureCount: Int
    /// Why it was disabled (`retries-exhausted`, `admin`), when it is.
    public var disabledReason: String?
    /// Until when (ms) the previous secret still signs, after a rotation.
    public var previousSecretExpiresAt: Int64?
    /// Milliseconds since 1970 when the endpoint was created.
    public var createdAt: Int64

    /// Creates a view with every field as given (it has no secret).
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
    /// The endpoint, as the admin API shows it.
    public var endpoint: WebhookEndpointView
    /// `whsec_<base64>`: the Standard Webhooks signing secret.
    public var secret: String

    /// Creates the answer to a creation or a rotation.
    public init(endpoint: WebhookEndpointView, secret: String) {
        self.endpoint = endpoint
        self.secret = secret
    }
}

/// `GET /v1/admin/clients/{clientKey}/webhooks`.
public struct WebhookEndpointList: Codable, Sendable, Equatable {
    /// The client's endpoints, oldest first, without secrets; empty when it has none.
    public var endpoints: [WebhookEndpointView]

    /// Creates a list.
    public init(endpoints: [WebhookEndpointView]) { self.endpoints = endpoints }
}

/// One delivery of one event to one endpoint, with how it went so far.
public struct WebhookDeliveryView: Codable, Sendable, Equatable {
    /// `whd_…`.
    public var id: String
    /// The Standard Webhooks message ID (`webhook-id`, `msg_…`), the same on every retry.
    public var eventId: String
    /// The event's type (`login.completed`, `webhook.test`, …).
    public var eventType: String
    /// `pending`, `delivered`, `failed` (given up) or `cancelled` (the endpoint was disabled or changed).
    public var status: String
    /// Attempts started so far (counted when an attempt starts; a redelivery sets it back to 0). A
    /// delivery is given up when its eighth attempt fails.
    public var attempts: Int
    /// The HTTP status of the last failed attempt, when the receiver answered it (a 2xx is not recorded
    /// here); absent until then, or when the last failure had no answer.
    public var lastStatus: Int?
    /// Why the last failed attempt failed (`HTTP 503`, the connection error, or `storage` when the
    /// endpoint could not be read), at most 500 characters; absent until an attempt failed. A later
    /// success or a redelivery leaves it as it was.
    public var lastError: String?
    /// Milliseconds since 1970 when the next attempt is due; present only while `status` is `pending`.
    public var nextAttemptAt: Int64?
    /// Milliseconds since 1970 when the delivery was queued (with its event, or by a test).
    public var createdAt: Int64
    /// Milliseconds since 1970 when the receiver answered 2xx; absent until then (a redelivery clears it).
    public var deliveredAt: Int64?

    /// Creates a view with every field as given.
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
    /// Up to `limit` deliveries (1–500, default 50), newest first.
    public var deliveries: [WebhookDeliveryView]
    /// `<createdAt>.<id>` of this page's last delivery, to pass as `before`; absent when the page holds
    /// fewer than `limit` (a full page always has one, even if the next page is empty).
    public var nextBefore: String?

    /// Creates a page.
    public init(deliveries: [WebhookDeliveryView], nextBefore: String?) {
        self.deliveries = deliveries
        self.nextBefore = nextBefore
    }
}
