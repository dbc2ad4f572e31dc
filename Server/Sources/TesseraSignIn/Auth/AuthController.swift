import Foundation
import HTTPTypes
import Hummingbird
import TesseraCore

/// Device routes of the node-quorum authentication (signed), the progress stream, the history
/// (result token) and the published result-token keys.
package struct AuthController<Context: TesseraContext> {
    package let device: DeviceAuthFlow
    package let relay: AuthEventRelay
    package let history: AuthHistory
    package let tokens: ResultTokens
    package let bodyLimit: Int

    package init(
        device: DeviceAuthFlow,
        relay: AuthEventRelay,
        history: AuthHistory,
        tokens: ResultTokens,
        bodyLimit: Int
    ) {
        self.device = device
        self.relay = relay
        self.history = history
        self.tokens = tokens
        self.bodyLimit = bodyLimit
    }

    /// `signed`: client headers and RFC 9421 device signature; `open`: no authentication
    /// (the stream: the unguessable channel ID is the capability; the history: a result token).
    package func addRoutes(signed: RouterGroup<Context>, open: RouterGroup<Context>, root: Router<Context>) {
        signed.post("channels", use: openChannel)
        signed.get("pending", use: pending)
        signed.post("channels/{channelId}/start", use: start)
        signed.post("channels/{channelId}/result", use: result)
        signed.post("channels/{channelId}/cancel", use: cancel)
        signed.post("channels/{channelId}/decline", use: decline)
        open.get("channels/{channelId}/events", use: events)
        open.get("history", use: historyPage)
        root.get(".well-known/jwks.json", use: jwks)
    }

    private func deviceId(_ context: Context) throws -> String {
        guard let id = context.deviceId else { throw AppError.signatureMissing() }
        return id
    }

    @Sendable package func openChannel(_ request: Request, context: Context) async throws -> Response {
        let channel = try await device.open(
            deviceId: try deviceId(context), client: try context.requireClient(), ip: context.remoteAddress, signed: context.signedDevice
        )
        return .json(channel, status: .created)
    }

    @Sendable package func pending(_ request: Request, context: Context) async throws -> Response {
        try .json(try await device.pending(deviceId: try deviceId(context), client: try context.requireClient(), signed: context.signedDevice))
    }

    @Sendable package func start(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(AuthStartRequest.self, limit: bodyLimit)
        return .json(try await device.start(
            channelId: try context.parameters.require("channelId"), deviceId: try deviceId(context), client: try context.requireClient(),
            request: body, signed: context.signedDevice
        ))
    }

    @Sendable package func result(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(AuthResultRequest.self, limit: bodyLimit)
        return .json(try await device.complete(
            channelId: try context.parameters.require("channelId"), deviceId: try deviceId(context), client: try context.requireClient(),
            request: body, signed: context.signedDevice
        ))
    }

    @Sendable package func cancel(_ request: Request, context: Context) async throws -> Response {
        try await device.end(
            channelId: try context.parameters.require("channelId"), deviceId: try deviceId(context), client: try context.requireClient(),
            outcome: .cancelled, signed: context.signedDevice
        )
        return try .json(RtResponse(rtMsg: "cancelled"))
    }

    @Sendable package func decline(_ request: Request, context: Context) async throws -> Response {
        try await device.end(
            channelId: try context.parameters.require("channelId"), deviceId: try deviceId(context), client: try context.requireClient(),
            outcome: .declined, signed: context.signedDevice
        )
        return try .json(RtResponse(rtMsg: "declined"))
    }

    /// Server-sent events: `event: status` for each step, then `event: outcome`, then the stream ends.
    @Sendable package func events(_ request: Request, context: Context) async throws -> Response {
        let stream = try await relay.events(channelId: try context.parameters.require("channelId"))
        return ServerSentEvents.response(comment: "tessera authentication progress", stream) { $0.outcome == nil ? "status" : "outcome" }
    }

    /// `Authorization: Bearer <result token>`; `limit` (1–100, default 20) and `before` (a `nextCursor`).
    @Sendable package func historyPage(_ request: Request, context: Context) async throws -> Response {
        guard let header = request.headers.value(.authorization), header.lowercased().hasPrefix("bearer ") else {
            var response = AppError.tokenInvalid(detail: "Send Authorization: Bearer <result token>")
                .response(requestId: context.requestId)
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
        let claims = try await tokens.verify(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces))
        var limit = 20
        if let text = request.uri.queryParameters.get("limit") {
            guard let value = Int(text), (1...100).contains(value) else { throw AppError.invalidField("limit", "limit must be 1–100") }
            limit = value
        }
        let before = request.uri.queryParameters.get("before")
        if let before, before.count > 200 { throw AppError.invalidField("before", "before must be a nextCursor value") }
        return try .json(try await history.page(claims: claims, limit: limit, before: before))
    }

    package struct JWKSDocument: Encodable { var keys: [PublishedJWK] }

    @Sendable package func jwks(_ request: Request, context: Context) async throws -> Response {
        var response = try Response.json(JWKSDocument(keys: try await tokens.jwks))
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }
}
