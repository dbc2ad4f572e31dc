import AsyncHTTPClient
import Foundation
import Synchronization
import Testing
import TesseraTestSupport
import Tessera
import TesseraCore
@testable import TesseraServer

/// Node-quorum authentication through the SDK against a live server with its three embedded nodes.
@Suite("SDK: authentication")
struct TesseraClientAuthTests {
    static let bundle = "com.example.auth"

    final class Recorder: Sendable {
        private let items = Mutex<[AuthStatus]>([])
        func add(_ status: AuthStatus) { items.withLock { $0.append(status) } }
        var statuses: [AuthStatus] { items.withLock { $0 } }
    }

    @Test("device login: four statuses in order, result token verifies, history lists the login, introspection active")
    func deviceLogin() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "alice", bundleId: Self.bundle)
            let recorder = Recorder()
            let token = try await tessera.authenticate(localAuthenticator: LiveServer.pin, reason: "Log in") { recorder.add($0) }
            #expect(recorder.statuses == AuthStatus.allCases)
            #expect(try tessera.getAuthResultToken() == token)
            let claims = try await runtime.tokens.verify(token)
            #expect(claims.sub.value == "alice")
            #expect(claims.aud.value == [client.clientKey])
            let deviceId = try tessera.loadDeviceID()
            #expect(claims.deviceId == deviceId)
            #expect(claims.amr == ["hwk", "pin"])
            #expect(claims.nodes.count >= 2)
            let embedded = Set(runtime.embeddedNodes.map(\.nodeId))
            #expect(Set(claims.nodes).isSubset(of: embedded))

            let history = try await tessera.authHistory()
            #expect(history.items.count == 1)
            #expect(history.items.first?.outcome == .completed)
            #expect(history.items.first?.channelId == claims.jti.value)
            #expect(history.items.first?.nodes == claims.nodes)

            let introspection = Introspection(
                database: runtime.database, devices: runtime.repositories.devices, sessions: runtime.repositories.sessions,
                tokens: runtime.tokens, hasher: runtime.keys.hasher, clock: .system
            )
            let active = try await introspection.introspect(token: token, client: client)
            #expect(active.active && active.sub == "alice" && active.tokenType == "result_token")
            // The token's client_id and introspection's name the same thing: the client key.
            #expect(claims.clientId == client.clientKey && active.clientId == claims.clientId)
            // A token from another client's point of view is inactive.
            let other = try await runtime.clients.create(name: "Other", bundleIds: ["com.example.other"]).client
            #expect(try await introspection.introspect(token: token, client: other).active == false)
            #expect(try await introspection.introspect(token: token + "x", client: client).active == false)
        }
    }

    @Test("the progress stream replays and then follows; a failed local check ends the channel as failed")
    func progressAndFailure() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "bob", bundleId: Self.bundle)
            let channel = try await tessera.openAuthChannel()
            let events = Task {
                var seen: [AuthEvent] = []
                for await event in tessera.authEvents(channelId: channel.channelId) { seen.append(event) }
                return seen
            }
            _ = try await tessera.requestAuthRequest(channel: channel)
            await #expect(throws: TesseraError.self) {
                _ = try await tessera.requestAuthResult(isSecondaryCertification: false)
            }
            let seen = await events.value
            #expect(seen.compactMap(\.status) == AuthStatus.allCases)
            #expect(seen.last?.outcome == .failed)
            #expect(seen.last?.code == ErrorCode.authSecondaryFailed.rawValue)
            // The channel cannot be completed afterwards.
            do {
                _ = try await tessera.requestAuthResult(isSecondaryCertification: true, unlockSecret: "482913")
                Issue.record("completed a failed channel")
            } catch let error as TesseraError {
                #expect(error.code == .authChannelState)
            }
            // A listener that joins after the nodes attested still gets every status, in order, then the outcome.
            let late = try await tessera.openAuthChannel()
            _ = try await tessera.requestAuthRequest(channel: late)
            let lateEvents = Task { await Array(tessera.authEvents(channelId: late.channelId)) }
            #expect(await eventually { runtime.auth.hub.listenerCount(late.channelId) > 0 })
            try await tessera.requestAuthResult(isSecondaryCertification: true, unlockSecret: "482913")
            let replayed = await lateEvents.value
            #expect(replayed.compactMap(\.status) == AuthStatus.allCases)
            #expect(replayed.last?.outcome == .completed)
        }
    }

    @Test("relying-party request: the device sees who asks and approves; the backend's long-poll receives the token")
    func relyingPartyApprove() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "carol", bundleId: Self.bundle)
            let request = try await runtime.auth.relyingParty.create(
                client: client, request: RPAuthRequest(userKey: "carol", connectIp: "203.0.113.9", message: "Log in to the web shop")
            )
            #expect(request.outcome == .pending)
            let waiting = Task { try await runtime.auth.relyingParty.state(client: client, id: request.requestId, wait: .seconds(20)) }
            let pending = try await tessera.pendingAuthRequests()
            #expect(pending.count == 1)
            #expect(pending.first?.connectIp == "203.0.113.9" && pending.first?.message == "Log in to the web shop")
            let token = try await tessera.authenticate(channel: pending[0], localAuthenticator: LiveServer.pin, reason: "Approve")
            let outcome = try await waiting.value
            #expect(outcome.outcome == .completed)
            #expect(outcome.token == token)
            #expect(try await tessera.pendingAuthRequests().isEmpty)
        }
    }

    @Test("relying-party request declined, cancelled by the backend, or expired: each ends with its own outcome")
    func relyingPartyEndings() async throws {
        // Time is the server's injected clock: the channels expire when the test moves it, not after a sleep.
        let manual = ManualClock(start: WallClock.system.now())
        try await LiveServer.run(bundleId: Self.bundle, clock: manual.clock, configure: { $0.channelLifetime = .seconds(20) }) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "dave", bundleId: Self.bundle)
            let ask = RPAuthRequest(userKey: "dave", connectIp: "198.51.100.1", message: "")

            let declined = try await runtime.auth.relyingParty.create(client: client, request: ask)
            try await tessera.declineAuthRequest(try #require(try await tessera.pendingAuthRequests().first))
            let afterDecline = try await runtime.auth.relyingParty.state(client: client, id: declined.requestId, wait: .zero)
            #expect(afterDecline.outcome == .declined && afterDecline.code == ErrorCode.authDeclined.rawValue)

            let cancelled = try await runtime.auth.relyingParty.create(client: client, request: ask)
            let pendingChannel = try #require(try await tessera.pendingAuthRequests().first)
            try await runtime.auth.relyingParty.cancel(client: client, id: cancelled.requestId)
            #expect(try await runtime.auth.relyingParty.state(client: client, id: cancelled.requestId, wait: .zero).outcome == .cancelled)
            do {
                _ = try await tessera.requestAuthRequest(channel: pendingChannel)
                Issue.record("started a cancelled channel")
            } catch let error as TesseraError {
                #expect(error.code == .authChannelCancelled)
            }

            let expiring = try await runtime.auth.relyingParty.create(client: client, request: ask)
            let expiringChannel = try #require(try await tessera.pendingAuthRequests().first)
            manual.advance(by: .seconds(21))
            let final = try await runtime.auth.relyingParty.state(client: client, id: expiring.requestId, wait: .seconds(120))
            #expect(final.outcome == .expired)
            do {
                _ = try await tessera.requestAuthRequest(channel: expiringChannel)
                Issue.record("started an expired channel")
            } catch let error as TesseraError {
                #expect(error.code == .authChannelExpired)
            }
            // A device's own channel that has passed its lifetime cannot be completed either.
            _ = try await tessera.requestAuthRequest()
            manual.advance(by: .seconds(21))
            do {
                _ = try await tessera.requestAuthResult(isSecondaryCertification: true, unlockSecret: "482913")
                Issue.record("completed an expired channel")
            } catch let error as TesseraError {
                #expect(error.code == .authChannelExpired)
            }
        }
    }

    @Test("the GCCS callback facade: onProcess for each status, onSuccess with authType, the token, onFailed with the code")
    func callbackFacade() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "gina", bundleId: Self.bundle)
            let api = TesseraCallbacks(client: tessera)
            let events = TesseraCallbacksTests.Events()
            let failed: TesseraCallbacks.OnFailed = { code, _ in events.add("failed \(code)") }
            let errored: TesseraCallbacks.OnError = { error in events.add("error \(error)") }
            await api.requestAuthRequest(
                onSuccess: { rtCode, _, authType, _, userKey, clientKey in
                    events.add("success \(rtCode) \(authType) \(userKey) \(clientKey == client.clientKey)")
                },
                onProcess: { events.add($0) }, onFailed: failed, onError: errored
            ).wait()
            await api.requestAuthResult(
                isSecondaryCertification: true, unlockSecret: "482913", onSuccess: { rtCode, _ in events.add("result \(rtCode)") },
                onFailed: failed, onError: errored
            ).wait()
            await api.getAuthResultToken(onSuccess: { rtCode, token in events.add("token \(rtCode) \(token.split(separator: ".").count)") },
                                         onFailed: failed, onError: errored).wait()
            await api.requestAuthCancel(onSuccess: { _, _ in events.add("cancelled") }, onFailed: failed, onError: errored).wait()
            #expect(events.all == [
                "CreateChannel", "SelectNodes", "StartVerificationOfNodes", "CompleteVerificationOfNodes", "success 0 \(LocalAuthType.pin.gccsCode) gina true",
                "result 0", "token 0 3", "failed \(ErrorCode.authChannelState.rawValue)",
            ])
        }
    }

    @Test("admin: users with their devices; revoking a device over the admin API reaches its calls, its tokens and every node")
    func adminRevoke() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "hank", bundleId: Self.bundle)
            let deviceId = try #require(try tessera.loadDeviceID())
            let token = try await tessera.authenticate(localAuthenticator: LiveServer.pin, reason: "Log in")
            let page = try await runtime.userAdmin.list(clientKey: client.clientKey)
            #expect(page.users.map(\.userKey) == ["hank"] && page.users.first?.devices.map(\.status) == ["active"])

            let adminToken = try #require(runtime.firstStart?.adminToken)
            var request = HTTPClientRequest(url: url.absoluteString + "/v1/admin/devices/\(deviceId)/revoke")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(adminToken)")
            #expect(try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status == .noContent)
            #expect(try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status == .conflict)

            do {
                _ = try await tessera.deviceInfo()
                Issue.record("a revoked device was accepted")
            } catch let error as TesseraError {
                #expect(error.code == .deviceRevoked)
            }
            let introspection = Introspection(
                database: runtime.database, devices: runtime.repositories.devices, sessions: runtime.repositories.sessions,
                tokens: runtime.tokens, hasher: runtime.keys.hasher, clock: .system
            )
            #expect(try await introspection.introspect(token: token, client: client).active == false)
            let receipts = try await runtime.database.withSQL { sql in
                try await sql.raw("SELECT node_id FROM node_receipts WHERE device_id = \(bind: deviceId) AND status = 'revoked'").all()
            }
            #expect(receipts.count == 3)
            #expect(try await runtime.userAdmin.list(clientKey: client.clientKey).users.first?.devices.first?.status == "revoked")
        }
    }

    @Test("TOTP for the relying party: valid once per step, reuse refused, lock-out after 10 failures, admin reset")
    func totp() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "erin", bundleId: Self.bundle)
            let code = try #require(try tessera.currentTOTPCode())
            let ok = try await runtime.totp.verify(client: client, request: TOTPVerifyRequest(userKey: "erin", code: code))
            let deviceId = try tessera.loadDeviceID()
            #expect(ok.valid && ok.deviceId == deviceId)
            do {
                _ = try await runtime.totp.verify(client: client, request: TOTPVerifyRequest(userKey: "erin", code: code))
                Issue.record("a used step was accepted")
            } catch let error as AppError {
                #expect(error.code == .totpStepReused)
            }
            let wrong = code == "000000" ? "111111" : "000000"
            var codes: [ErrorCode] = []
            for _ in 0..<11 {
                do { _ = try await runtime.totp.verify(client: client, request: TOTPVerifyRequest(userKey: "erin", code: wrong)) } catch let error as AppError {
                    codes.append(error.code)
                }
            }
            // 10 invalid (the reuse above is refused but not counted), then locked.
            #expect(codes.filter { $0 == .totpInvalid }.count == 10)
            #expect(codes.suffix(1) == [.totpLocked])
            // Locked: even a right code is refused.
            let next = try #require(try tessera.currentTOTPCode(at: Date().addingTimeInterval(30)))
            await #expect { _ = try await runtime.totp.verify(client: client, request: TOTPVerifyRequest(userKey: "erin", code: next)) } throws: {
                ($0 as? AppError)?.code == .totpLocked
            }
            try await runtime.resetTOTP(clientKey: client.clientKey, userKey: "erin")
            #expect(try await runtime.totp.verify(client: client, request: TOTPVerifyRequest(userKey: "erin", code: next)).valid)
            await #expect { _ = try await runtime.totp.verify(client: client, request: TOTPVerifyRequest(userKey: "erin", code: wrong)) } throws: {
                ($0 as? AppError)?.code == .totpInvalid && ($0 as? AppError)?.remainingAttempts == 9
            }
            // 25 wrong guesses at once: exactly the 9 tries left are answered "invalid", the rest "locked".
            let answers = await withTaskGroup(of: ErrorCode?.self) { group in
                for _ in 0..<25 {
                    group.addTask {
                        do { _ = try await runtime.totp.verify(client: client, request: TOTPVerifyRequest(userKey: "erin", code: wrong)); return nil } catch {
                            return (error as? AppError)?.code
                        }
                    }
                }
                return await group.reduce(into: [ErrorCode?]()) { $0.append($1) }
            }
            #expect(answers.filter { $0 == .totpInvalid }.count == 9)
            #expect(answers.filter { $0 == .totpLocked }.count == 16)
        }
    }

    @Test("64 parallel uses of one TOTP code: exactly one is accepted, the other 63 are refused as a reused step")
    func totpReuseUnderConcurrency() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "ivan", bundleId: Self.bundle)
            let code = try #require(try tessera.currentTOTPCode())
            let answers = await withTaskGroup(of: String.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        do {
                            let answer = try await runtime.totp.verify(client: client, request: TOTPVerifyRequest(userKey: "ivan", code: code))
                            return answer.valid ? "accepted" : "not valid"
                        } catch let error as AppError {
                            return "\(error.code)"
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(answers.filter { $0 == "accepted" }.count == 1, "\(answers)")
            #expect(answers.filter { $0 == "\(ErrorCode.totpStepReused)" }.count == 63, "\(answers)")
        }
    }
}
