import Crypto
import Foundation
import NATSClient
import TesseraJOSE
import VaultProtocol
import TesseraCore

extension VaultConnection {
    /// `app.bootstrap` with the ledger's bootstrap credentials (which may only send this one command and hear its
    /// answer). The reply must be signed by the vault's identity key, answer this request and echo this session key;
    /// anything else is refused. The new session and full credentials are saved, then the app connects with them.
    /// Sent again (same request) while no valid reply came: the vault may still be starting.
    @discardableResult
    public func bootstrap(credentials bootstrapCredentials: NATSCredentials, device: Device, timeout: Duration = .seconds(30)) async throws(VaultError) -> BootstrapResult {
        guard let appKey = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: random.bytes(32)) else {
            throw .crypto("cannot create an X25519 key")
        }
        let id = newID()
        let payload = BootstrapPayload(
            deviceID: device.deviceID, deviceType: device.deviceType, appVersion: device.appVersion,
            requestedTTLHours: device.requestedTTLHours, appSessionPublicKey: appKey.publicKey.rawRepresentation)
        let event = VaultEventMessage(id: id, type: VaultSubjects.bootstrapType, payload: payload.json, timestamp: Int64(now.timeIntervalSince1970))
        let replySubject = VaultSubjects.reply(guid, type: VaultSubjects.bootstrapType, id: id)
        let connection: any NATSConnection
        do {
            connection = try await connector.connect(credentials: bootstrapCredentials, name: "app-bootstrap-" + guid)
        } catch {
            throw .bus(String(describing: error))
        }
        defer { Task { await connection.close() } }
        let deadline = ContinuousClock.now + timeout
        var lastRefusal: VaultError = .timeout
        while ContinuousClock.now < deadline {
            // A subscription per attempt: waiting ends (cancels) the previous one.
            let replies: Subscription
            do {
                replies = try await connection.subscribe(to: replySubject, queue: nil)
                try await connection.flush(timeout: .seconds(5))
                try await connection.publish(event.encoded(), to: VaultSubjects.command(guid, type: VaultSubjects.bootstrapType), replyTo: nil, headers: nil)
            } catch {
                throw .bus(String(describing: error))
            }
            let wait = min(requestTimeout, deadline - ContinuousClock.now)
            let reply = await Self.first(of: replies, within: wait)
            await replies.unsubscribe()
            guard let reply else { continue }
            do {
                let result = try SignedBootstrapReply.verify(
                    String(decoding: reply.payload, as: UTF8.self), identityPublicKey: identityPublicKey, requestID: id,
                    appSessionPublicKey: appKey.publicKey.rawRepresentation, now: now)
                try adopt(result, appKey: appKey)
                try await self.connect()
                return result
            } catch let error as VaultProtocolError {
                // A forged or stale reply is ignored; a genuine one may still come (asked again after a pause, so a
                // forger cannot make the app flood the vault with requests).
                lastRefusal = .bootstrapRefused(error.description)
                try? await Task.sleep(for: min(.milliseconds(500), max(.zero, deadline - ContinuousClock.now)))
            } catch let error as VaultError {
                throw error
            } catch {
                throw .bootstrapRefused(String(describing: error))
            }
        }
        throw lastRefusal
    }

    /// The session from a verified reply: key derived, credentials opened, all of it saved before use.
    private func adopt(_ result: BootstrapResult, appKey: Curve25519.KeyAgreement.PrivateKey) throws(VaultError) {
        let info = result.sessionInfo
        let key: SymmetricKey
        let creds: Data
        do {
            key = try VaultSessionKey.derive(privateKey: appKey, peerPublicKey: info.vaultSessionPublicKey, sessionID: info.sessionID)
            creds = try result.credentials.open(key: key, sessionID: info.sessionID)
        } catch {
            throw .bootstrapRefused("the sealed credentials do not open with the session key")
        }
        let fresh = VaultSessionState(
            userGUID: userGUID, identityPublicKey: Base64URL.encode(identityPublicKey), natsEndpoint: result.natsEndpoint,
            credentials: String(decoding: creds, as: UTF8.self), credentialID: result.credentialID,
            credentialsExpireAt: result.expiresAt, sessionID: info.sessionID, sessionKey: key.withUnsafeBytes { Base64URL.encode(Data($0)) },
            sessionCreatedAt: Int64(now.timeIntervalSince1970), sessionExpiresAt: info.sessionExpiresAt, sendReserved: 0, messagesSent: 0)
        try keyStore.saveSession(fresh)
        state = fresh
        sessionKey = key
        windows = [:]
        lastSeq = 0
        skipsWithoutAnswer = 0
    }

    /// The first message of `subscription` within `timeout`, or nil.
    static func first(of subscription: Subscription, within timeout: Duration) async -> NATSMessage? {
        await withTaskGroup(of: NATSMessage?.self) { group in
            group.addTask {
                do {
                    for try await message in subscription { return message }
                } catch {}
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
