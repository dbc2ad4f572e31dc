import Crypto
import Logging
import ServiceLifecycle

/// The authentication pieces wired together once: the device flow, the relying-party flow, the
/// event relay and the history, over one channel store and one event hub. Holds no logic itself.
package struct AuthDomain: Sendable {
    package struct Settings: Sendable {
        package var nodesPerAuthentication = 3
        package var quorum = 2
        package var nodeTimeout: Duration = .milliseconds(2000)
        /// See ``NodeQuorum/spareAfter`` (nil: every selected node at once).
        package var nodeSpareAfter: Duration? = .milliseconds(100)
        package var channelLifetime: Duration = .seconds(120)

        package init(
            nodesPerAuthentication: Int = 3,
            quorum: Int = 2,
            nodeTimeout: Duration = .milliseconds(2000),
            nodeSpareAfter: Duration? = .milliseconds(100),
            channelLifetime: Duration = .seconds(120)
        ) {
            self.nodesPerAuthentication = nodesPerAuthentication
            self.quorum = quorum
            self.nodeTimeout = nodeTimeout
            self.nodeSpareAfter = nodeSpareAfter
            self.channelLifetime = channelLifetime
        }
    }

    package let hub: AuthEventHub
    package let channels: AuthChannels
    package let device: DeviceAuthFlow
    package let relyingParty: RelyingPartyAuthFlow
    package let relay: AuthEventRelay
    package let history: AuthHistory

    /// - Parameters:
    ///   - devices: The devices domain's named queries (devices, their users and clients).
    ///   - nodes: Where the verifier nodes come from.
    ///   - sealKey: Seals result tokens kept for the relying party's long-poll.
    ///   - push: Wakes the user's devices when a relying party asks (nil: they poll).
    ///   - metrics: Counts logins by outcome and node attestations (nil: not counted).
    package init(
        database: any Database, devices: any DeviceAuthLookup, nodes: any AttestingNodes, tokens: ResultTokens, sealKey: SymmetricKey,
        random: RandomSource, clock: WallClock, settings: Settings, logger: Logger, push: (any RelyingPartyRequestPush)? = nil,
        audit: (any AuditLog)? = nil, metrics: (any LoginMetrics)? = nil, appAttest: AppAttestService? = nil
    ) {
        let store = AuthChannelRepository(database: database, audit: audit)
        let hub = AuthEventHub()
        let channels = AuthChannels(store: store, hub: hub, random: random, clock: clock, lifetime: settings.channelLifetime, metrics: metrics)
        let sealer = SealedResultToken(key: sealKey)
        self.hub = hub
        self.channels = channels
        device = DeviceAuthFlow(
            channels: channels, devices: devices, nodes: nodes, tokens: tokens, sealer: sealer,
            nodesPerAuthentication: settings.nodesPerAuthentication,
            nodeQuorum: NodeQuorum(
                nodes: nodes, quorum: settings.quorum, timeout: settings.nodeTimeout, clock: clock, metrics: metrics, spareAfter: settings.nodeSpareAfter
            ),
            logger: logger, appAttest: appAttest
        )
        relyingParty = RelyingPartyAuthFlow(channels: channels, devices: devices, sealer: sealer, push: push)
        relay = AuthEventRelay(store: store, hub: hub, clock: clock, logger: logger)
        history = AuthHistory(store: store, devices: devices, clock: clock)
    }

    /// The background work of authentication: the expiry of channels and the relay of stored events.
    package func services(logger: Logger) -> [any Service] { [ChannelExpiryService(channels: channels, logger: logger), relay] }
}
