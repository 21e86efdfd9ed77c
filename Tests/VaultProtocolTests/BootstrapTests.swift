import Crypto
import Foundation
import TesseraCore
import TesseraJOSE
import Testing
import VaultProtocol

@Suite struct BootstrapTests {
    private static let now = Date(timeIntervalSince1970: 1_700_000_000)
    private static let requestID = "6f1c0c1e-8a8b-4a53-9d1e-0c7f3b2a1d00"

    private func result(echo: Data = Vector.appPublicKey, encryption: Bool = true) throws -> BootstrapResult {
        let key = try Fixture.sessionKey()
        return BootstrapResult(
            credentials: try SealedCredentials.seal(Data("-----BEGIN NATS USER JWT-----\n…".utf8), key: key, sessionID: "sess-1", random: SystemRandomSource()),
            natsEndpoint: "nats://127.0.0.1:4222", ownerSpace: VaultSubjects.ownerSpace(Fixture.guid),
            messageSpace: VaultSubjects.messageSpace(Fixture.guid), topics: VaultHandler.allCases.map(\.rawValue),
            expiresAt: 1_700_086_400, ttlSeconds: 86_400, credentialID: "cred-1",
            sessionInfo: SessionInfo(
                sessionID: "sess-1", vaultSessionPublicKey: Vector.vaultPublicKey, sessionExpiresAt: 1_700_086_400,
                encryptionEnabled: encryption, appSessionPublicKey: echo))
    }

    private func reply(_ result: BootstrapResult, id: String = requestID, timestamp: Int64 = 1_700_000_000, key: Curve25519.Signing.PrivateKey? = nil) throws -> String {
        try SignedBootstrapReply.sign(
            .success(eventID: id, result: result.json, timestamp: timestamp), identityKey: key ?? Fixture.identityKey())
    }

    private func verify(_ compact: String, identity: Data? = nil, id: String = requestID, echo: Data = Vector.appPublicKey, now: Date = now) throws -> BootstrapResult {
        try SignedBootstrapReply.verify(
            compact, identityPublicKey: identity ?? Fixture.identityKey().publicKey.rawRepresentation, requestID: id,
            appSessionPublicKey: echo, now: now)
    }

    // MARK: Payload

    @Test func payloadRoundTrip() throws {
        let payload = BootstrapPayload(deviceID: "dev-1", deviceType: "ios", appVersion: "1.0.0", requestedTTLHours: 24, appSessionPublicKey: Vector.appPublicKey)
        #expect(payload.json.serialized() == Data(#"{"device_id":"dev-1","device_type":"ios","app_version":"1.0.0","requested_ttl_hours":24,"app_session_public_key":"\#(Fixture.appPublicKeyB64)"}"#.utf8))
        #expect(try BootstrapPayload(json: payload.json) == payload)
        let event = VaultEventMessage(id: Self.requestID, type: VaultSubjects.bootstrapType, payload: payload.json, timestamp: 1)
        guard case .message(let decoded) = try VaultPlaintext(json: event.encoded()) else { Issue.record("not a message"); return }
        #expect(try BootstrapPayload(json: decoded.payload) == payload)
    }

    @Test func payloadRefusals() throws {
        let good = BootstrapPayload(deviceID: "d", deviceType: "t", appVersion: "v", requestedTTLHours: 1, appSessionPublicKey: Vector.appPublicKey).json
        var cases: [JSONObject] = []
        for name in good.keys {
            var missing = good
            missing[name] = nil
            cases.append(missing)
        }
        for (name, value) in [
            ("requested_ttl_hours", JSONValue.integer(0)), ("requested_ttl_hours", 169), ("requested_ttl_hours", "24"),
            ("app_session_public_key", .string(Base64URL.encode(Data(count: 31)))), ("app_session_public_key", .string(Fixture.appPublicKeyB64 + "=")),
            ("app_session_public_key", .string(Base64URL.encode(Data(repeating: 0xff, count: 32)))),  // not canonical
            ("device_id", .string(string(257))), ("device_id", ""), ("device_type", 1), ("extra", true),
        ] {
            var changed = good
            changed[name] = value
            cases.append(changed)
        }
        for json in cases {
            #expect(throws: VaultProtocolError.self) { try BootstrapPayload(json: json) }
        }
    }

    // MARK: Sealed credentials

    @Test func sealedCredentials() throws {
        let key = try Fixture.sessionKey()
        let creds = Data("creds".utf8)
        let sealed = try SealedCredentials.seal(creds, key: key, sessionID: "sess-1", random: FixedRandom(data: Vector.nonce))
        #expect(try SealedCredentials(json: sealed.json) == sealed)
        #expect(try sealed.open(key: key, sessionID: "sess-1") == creds)
        // The AAD binds the session; the ciphertext is authenticated.
        #expect(ChaChaPolyCheck.open(sealed, key: key, aad: Data("app-vault-v1|bootstrap|sess-1".utf8)) == creds)
        #expect(throws: VaultProtocolError.decryptionFailed) { try sealed.open(key: key, sessionID: "sess-2") }
        #expect(throws: VaultProtocolError.decryptionFailed) { try sealed.open(key: SymmetricKey(size: .bits256), sessionID: "sess-1") }
        var ciphertext = sealed.ciphertext
        ciphertext[0] ^= 1
        #expect(throws: VaultProtocolError.decryptionFailed) { try SealedCredentials(nonce: sealed.nonce, ciphertext: ciphertext).open(key: key, sessionID: "sess-1") }
        #expect(throws: VaultProtocolError.self) { try SealedCredentials(json: ["nonce": .string(Base64URL.encode(sealed.nonce))]) }
        #expect(throws: VaultProtocolError.self) { try SealedCredentials(json: ["nonce": .string(Base64URL.encode(Data(count: 11))), "ciphertext": .string(Base64URL.encode(sealed.ciphertext))]) }
        var extra = sealed.json
        extra["epk"] = "x"
        #expect(throws: VaultProtocolError.self) { try SealedCredentials(json: extra) }
        #expect(throws: VaultProtocolError.tooLarge(limit: VaultLimits.maxValueBytes)) {
            try SealedCredentials.seal(Data(count: VaultLimits.maxValueBytes + 1), key: key, sessionID: "s", random: SystemRandomSource())
        }
    }

    @Test func resultRoundTrip() throws {
        let result = try result()
        #expect(try BootstrapResult(json: result.json) == result)
        var missing = result.json
        missing["session_info"] = nil
        #expect(throws: VaultProtocolError.self) { try BootstrapResult(json: missing) }
        var badInfo = result.json
        var info = result.sessionInfo.json
        info["extra"] = 1
        badInfo["session_info"] = .object(info)
        #expect(throws: VaultProtocolError.self) { try BootstrapResult(json: badInfo) }
        var badTopics = result.json
        badTopics["topics"] = .array([.integer(1)])
        #expect(throws: VaultProtocolError.self) { try BootstrapResult(json: badTopics) }
    }

    // MARK: Signed reply

    @Test func goodReplyVerifies() throws {
        let expected = try result()
        let compact = try reply(expected)
        let jws = try CompactJWS(parsing: compact)
        #expect(jws.algorithm == .edDSA && jws.type == "vault-bootstrap+jwt")
        let verified = try verify(compact)
        #expect(verified == expected)
        #expect(try verified.credentials.open(key: Fixture.sessionKey(), sessionID: verified.sessionInfo.sessionID).starts(with: Data("-----BEGIN".utf8)))
        // ±300 s are inside.
        #expect(try verify(compact, now: Self.now.addingTimeInterval(300)) == expected)
        #expect(try verify(compact, now: Self.now.addingTimeInterval(-300)) == expected)
    }

    @Test func wrongIdentityKey() throws {
        let compact = try reply(result())
        #expect(throws: VaultProtocolError.badSignature) { try verify(compact, identity: Fixture.identityKey(8).publicKey.rawRepresentation) }
        #expect(throws: VaultProtocolError.badSignature) { try verify(reply(result(), key: Fixture.identityKey(9))) }
        #expect(throws: VaultProtocolError.self) { try verify(compact, identity: Data(count: 31)) }
    }

    @Test func changedPayloadByte() throws {
        let compact = try reply(result())
        let parts = compact.split(separator: ".").map(String.init)
        var payload = try Base64URL.decode(parts[1])
        // Change one byte inside a string value (still valid JSON): the signature no longer covers it.
        guard let index = payload.firstIndex(of: UInt8(ascii: "c")) else { Issue.record("no byte to change"); return }
        payload[index] = UInt8(ascii: "d")
        let forged = parts[0] + "." + Base64URL.encode(payload) + "." + parts[2]
        #expect(throws: VaultProtocolError.badSignature) { try verify(forged) }
        // And a changed signature byte.
        var signature = try Base64URL.decode(parts[2])
        signature[10] ^= 1
        #expect(throws: VaultProtocolError.badSignature) { try verify(parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)) }
    }

    @Test func bindingChecks() throws {
        #expect(throws: VaultProtocolError.bindingMismatch("event_id is not the request's id")) { try verify(reply(result(), id: "other-request")) }
        var otherKey = Vector.appPublicKey
        otherKey[0] ^= 1
        #expect(throws: VaultProtocolError.self) { try verify(reply(result(echo: Vector.vaultPublicKey))) }
        #expect(throws: VaultProtocolError.self) { try verify(reply(result()), echo: otherKey) }
        #expect(throws: VaultProtocolError.bindingMismatch("the timestamp is more than 300 s from this clock")) {
            try verify(reply(result(), timestamp: 1_700_000_000 - 301))
        }
        #expect(throws: VaultProtocolError.self) { try verify(reply(result()), now: Self.now.addingTimeInterval(301)) }
        #expect(throws: VaultProtocolError.self) { try verify(reply(result(encryption: false))) }
    }

    @Test func signedFailureIsReported() throws {
        let failure = VaultEventResponse.failure(eventID: Self.requestID, error: VaultEventError(code: "vault_stopped", message: "m"), timestamp: 1_700_000_000)
        let compact = try SignedBootstrapReply.sign(failure, identityKey: Fixture.identityKey())
        #expect(throws: VaultProtocolError.eventFailed(VaultEventError(code: "vault_stopped", message: "m"))) { try verify(compact) }
        let noResult = try SignedBootstrapReply.sign(.success(eventID: Self.requestID, result: nil, timestamp: 1_700_000_000), identityKey: Fixture.identityKey())
        #expect(throws: VaultProtocolError.self) { try verify(noResult) }
    }

    @Test func otherAlgorithmsAndTypesAreRefused() throws {
        let payload = Base64URL.encode(VaultEventResponse.success(eventID: Self.requestID, result: try result().json, timestamp: 1_700_000_000).encoded())
        // alg none, with an empty signature.
        let none = Base64URL.encode(Data(#"{"alg":"none","typ":"vault-bootstrap+jwt"}"#.utf8)) + "." + payload + "."
        #expect(throws: VaultProtocolError.badSignature) { try verify(none) }
        // HS256 keyed with the public identity key (the classic confusion).
        let header = Base64URL.encode(Data(#"{"alg":"HS256","typ":"vault-bootstrap+jwt"}"#.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data((header + "." + payload).utf8), using: SymmetricKey(data: try Fixture.identityKey().publicKey.rawRepresentation))
        #expect(throws: VaultProtocolError.badSignature) { try verify(header + "." + payload + "." + Base64URL.encode(Data(mac))) }
        // ES256 from another key.
        let es256 = try CompactJWS.sign(header: ["typ": "vault-bootstrap+jwt"], payload: Base64URL.decode(payload), key: .es256(P256.Signing.PrivateKey())).compact
        #expect(throws: VaultProtocolError.badSignature) { try verify(es256) }
        // A JWS of another type signed by the right key.
        let other = try CompactJWS.sign(header: ["typ": "JWT"], payload: Base64URL.decode(payload), key: .edDSA(Fixture.identityKey())).compact
        #expect(throws: VaultProtocolError.self) { try verify(other) }
        for text in ["", "a.b", "a.b.c.d", String(repeating: "A", count: 400 * 1024)] {
            #expect(throws: VaultProtocolError.self) { try verify(text) }
        }
    }
}

/// ChaCha20-Poly1305 straight from swift-crypto, to check the sealed credentials' layout (tag appended) and AAD.
enum ChaChaPolyCheck {
    static func open(_ sealed: SealedCredentials, key: SymmetricKey, aad: Data) -> Data? {
        guard let nonce = try? ChaChaPoly.Nonce(data: sealed.nonce),
            let box = try? ChaChaPoly.SealedBox(nonce: nonce, ciphertext: sealed.ciphertext.dropLast(16), tag: sealed.ciphertext.suffix(16))
        else { return nil }
        return try? ChaChaPoly.open(box, using: key, authenticating: aad)
    }
}
