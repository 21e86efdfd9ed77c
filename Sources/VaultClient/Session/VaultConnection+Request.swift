import Crypto
import Foundation
import NATSClient
import TesseraCore
import TesseraJOSE
import VaultProtocol

extension VaultConnection {
    /// Rotation is due after this many messages or this age (issue 13), whichever comes first.
    static let rotateAfterMessages = 1000
    static let rotateAfterSeconds: Int64 = 24 * 3600

    /// Sends a command and returns its result; a vault error becomes `VaultError.vault(code:message:)`. Without an
    /// answer the same event is sent again (new sequence number, in a new block once: `skipReservedBlock`), up to
    /// `attempts` times.
    public func request(_ type: String, payload: JSONObject = [:]) async throws(VaultError) -> JSONObject {
        let response = try await send(type, payload: payload)
        if let error = response.error { throw .vault(code: error.code, message: error.message) }
        try await rotateIfDue()
        return response.result ?? [:]
    }

    func send(_ type: String, payload: JSONObject) async throws(VaultError) -> VaultEventResponse {
        guard let connection else { throw .noSession }
        let id = newID()
        let event = VaultEventMessage(id: id, type: type, payload: payload, timestamp: Int64(now.timeIntervalSince1970))
        let plaintext = event.encoded()
        let subject = VaultSubjects.command(guid, type: type)
        var unanswered: (sessionID: String, seq: UInt64)?
        for _ in 0..<max(1, attempts) {
            guard let key = sessionKey, let sessionID = state?.sessionID else { throw .noSession }
            // Under a new session (a rotation meanwhile) the vault's floor starts again at 0: nothing to skip.
            if let unanswered, unanswered.sessionID == sessionID { skipReservedBlock(after: unanswered.seq) }
            let seq = try nextSeq()
            guard let envelope = try? VaultEnvelope.seal(
                plaintext, key: key, direction: .appToVault, sessionID: sessionID, seq: seq, subject: subject, random: AnyRandomSource(random))
            else { throw .crypto("cannot seal the command") }
            if let response = try await exchange(envelope.encoded(), subject: subject, id: id, over: connection) { return response }
            unanswered = (sessionID, seq)
        }
        throw .timeout
    }

    /// Before a retry: the attempt with `lost` got no answer, perhaps because the vault was restarted or taken over
    /// and, restored from its database, drops every seq of the blocks it had reserved (`SeqReservation`), ours
    /// included. The retry starts the next block, which is above any floor the vault can have saved (the two ends
    /// use the same blocks). Not when another retry has already moved on from `lost`'s block (one skip serves every
    /// request that was waiting), and at most `SeqReservation.maxSkipsWithoutAnswer` times until an answer arrives
    /// (a long outage must not carry the numbers past the vault's `ReplayWindow.maxAdvance`).
    func skipReservedBlock(after lost: UInt64) {
        let current = SeqReservation.blockEnd(of: lastSeq)
        // At the end of a block the next number starts a new one anyway: nothing to skip, nothing to count.
        guard lastSeq < current, SeqReservation.blockEnd(of: lost) >= current,
            skipsWithoutAnswer < SeqReservation.maxSkipsWithoutAnswer
        else { return }
        lastSeq = current
        skipsWithoutAnswer += 1
    }

    /// Publishes and waits for the answer to `id` (nil after `requestTimeout`). The publish is awaited here, not in
    /// a task of its own (one hand-off less per request); an answer that arrives before the wait begins is kept in
    /// the request's slot.
    private func exchange(_ bytes: Data, subject: String, id: String, over connection: any NATSConnection) async throws(VaultError) -> VaultEventResponse? {
        pending[id] = .sent
        do {
            try await connection.publish(bytes, to: subject, replyTo: nil, headers: nil)
        } catch {
            pending[id] = nil
            throw .bus(String(describing: error))
        }
        if case .answered(let response)? = pending[id] {
            pending[id] = nil
            return response
        }
        let timeout = requestTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            await self?.finish(id, with: .success(nil))
        }
        defer { timer.cancel() }
        do {
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<VaultEventResponse?, any Error>) in
                pending[id] = .awaiting(continuation)
            }
        } catch let error as VaultError {
            throw error
        } catch {
            throw .bus(String(describing: error))
        }
    }

    func finish(_ id: String, with result: Result<VaultEventResponse?, any Error>) {
        guard case .awaiting(let continuation)? = pending[id] else { return }
        pending[id] = nil
        continuation.resume(with: result)
    }

    /// An answer arrived: to its waiting request, or kept until the request waits for it.
    func answered(_ response: VaultEventResponse) {
        // The vault answers the current block (or the session was replaced): skipping is allowed again.
        skipsWithoutAnswer = 0
        switch pending[response.eventID] {
        case .awaiting(let continuation)?:
            pending[response.eventID] = nil
            continuation.resume(returning: response)
        case .sent?:
            pending[response.eventID] = .answered(response)
        case .answered?, nil:
            break
        }
    }

    /// The next sequence number; a new block (`SeqReservation`, aligned as the vault's) is saved before its first
    /// number is used, so a restarted app never sends a number the vault has already seen.
    func nextSeq() throws(VaultError) -> UInt64 {
        guard var current = state else { throw .noSession }
        let seq = lastSeq + 1
        current.messagesSent += 1
        if seq > current.sendReserved {
            current.sendReserved = SeqReservation.blockEnd(of: seq)
            try keyStore.saveSession(current)
        }
        state = current
        lastSeq = seq
        return seq
    }

    /// `session.rotate` when the session has carried 1000 messages or is 24 h old.
    func rotateIfDue() async throws(VaultError) {
        guard let current = state else { return }
        let age = Int64(now.timeIntervalSince1970) - current.sessionCreatedAt
        // One rotation at a time: the commands that finish while it is on its way do not start their own.
        guard rotationsInFlight == 0 else { return }
        if current.messagesSent >= Self.rotateAfterMessages || age >= Self.rotateAfterSeconds { try await rotateSession() }
    }

    /// A new session key from a new X25519 pair; the old session still decrypts answers for 60 s.
    public func rotateSession() async throws(VaultError) {
        guard let appKey = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: random.bytes(32)) else {
            throw .crypto("cannot create an X25519 key")
        }
        rotationsInFlight += 1
        defer { rotationEnded() }
        let request = SessionRotateRequest(newAppPublicKey: appKey.publicKey.rawRepresentation)
        let response = try await send(VaultHandler.sessionRotate.rawValue, payload: request.payload)
        if let error = response.error { throw .vault(code: error.code, message: error.message) }
        guard let result = try? SessionRotateResult(result: response.result ?? [:]),
            let key = try? VaultSessionKey.derive(privateKey: appKey, peerPublicKey: result.newVaultPublicKey, sessionID: result.newSessionID),
            var current = state, let oldKey = sessionKey
        else { throw .invalidResponse("session.rotate answer") }
        retiredSessions = retiredSessions.filter { $0.value.until > now }
        windows = windows.filter { $0.key == current.sessionID || retiredSessions[$0.key] != nil }
        retiredSessions[current.sessionID] = (oldKey, now.addingTimeInterval(60))
        current.sessionID = result.newSessionID
        current.sessionKey = key.withUnsafeBytes { Base64URL.encode(Data($0)) }
        current.sessionCreatedAt = Int64(now.timeIntervalSince1970)
        current.sessionExpiresAt = result.sessionExpiresAt
        current.sendReserved = 0
        current.messagesSent = 0
        try keyStore.saveSession(current)
        state = current
        sessionKey = key
        lastSeq = 0
        skipsWithoutAnswer = 0
    }

    /// Opens what arrived under the new session before it was adopted (held again if another rotation is still on
    /// its way; dropped as `unknownSession` if this one failed).
    func rotationEnded() {
        rotationsInFlight -= 1
        let held = heldDuringRotation
        heldDuringRotation = []
        for message in held { receive(message) }
    }
}
