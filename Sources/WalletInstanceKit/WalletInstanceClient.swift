import Crypto
import Foundation
import HolderKit
import TesseraCore
import TesseraJOSE
import TesseraHTTP

/// Drives the instance's lifecycle against a Wallet Provider: activation (IT-Wallet Wallet Instance
/// Initialization and Registration, then the first Wallet Attestation), re-issuance, the provider's view of the
/// instance (a revocation seen online moves it back to Installed and deletes the hardware key), and PID reports.
public struct WalletInstanceClient: Sendable {
    /// The instance's persisted lifecycle.
    public let store: WalletInstanceStore
    /// The platform's Device Integrity Service (App Attest, Android Key Attestation, or a test service).
    public let integrity: any DeviceIntegrityService
    /// How the provider is reached (injected, so tests and Linux use their own transport).
    public let http: any HTTPClient
    /// The instant transitions are recorded at and the provider's statements checked at (decision 5).
    public let clock: any TesseraClock

    /// A client over the instance's store, the platform's integrity service and an HTTP client.
    public init(store: WalletInstanceStore, integrity: any DeviceIntegrityService, http: any HTTPClient, clock: any TesseraClock = SystemClock()) {
        self.store = store
        self.integrity = integrity
        self.http = http
        self.clock = clock
    }

    /// The Entity Configuration of `provider`, checked (federation check of step 2).
    public func discover(provider: String) async throws(WalletInstanceError) -> ProviderMetadata {
        let base = provider.hasSuffix("/") ? String(provider.dropLast()) : provider
        let response = try await send(.get, base + "/.well-known/openid-federation")
        return try ProviderMetadata(entityConfiguration: String(decoding: response.body, as: UTF8.self), expectedEntityID: base, at: clock.now())
    }

    /// Activation: federation check, nonce, a new attested hardware key (the previous one deleted first),
    /// registration under the account `session`, then the first Wallet Attestation ⇒ Operational.
    public func activate(provider: String, session: String) async throws(WalletInstanceError) -> WalletInstanceRecord {
        let current = try store.load()
        guard current.state.after(.activated) != nil else { throw .illegalTransition(from: current.state, event: .activated) }
        let metadata = try await discover(provider: provider)
        if let old = current.hardwareKeyID { await integrity.deleteKey(keyID: old) }
        let challenge = try await nonce(metadata)
        let key = try await integrity.createAttestedKey(challenge: challenge)
        var record = current
        record.providerURL = metadata.entityID
        record.hardwareKeyID = key.keyID
        record.hardwareKeyTag = key.hardwareKeyTag
        try store.save(record)
        let body: JSONObject = [
            "challenge": .string(challenge), "key_attestation": .string(key.keyAttestation),
            "hardware_key_tag": .string(key.hardwareKeyTag),
        ]
        _ = try await send(.post, metadata.entityID + "/wallet-instance", json: body, session: session, expect: 204)
        let attestation = try await requestAttestation(metadata, keyID: key.keyID, tag: key.hardwareKeyTag)
        return try store.apply(.activated, at: clock.now()) { $0.keep(attestation) }
    }

    /// A fresh Wallet Attestation (before the last one expires). A provider that says the instance is revoked
    /// moves it back to Installed and the hardware key is deleted.
    public func reissue() async throws(WalletInstanceError) -> WalletInstanceRecord {
        let record = try store.load()
        guard record.state == .operational || record.state == .valid, let provider = record.providerURL,
            let keyID = record.hardwareKeyID, let tag = record.hardwareKeyTag
        else { throw .notActivated }
        let metadata = try await discover(provider: provider)
        do {
            let attestation = try await requestAttestation(metadata, keyID: keyID, tag: tag)
            var updated = record
            updated.keep(attestation)
            try store.save(updated)
            return updated
        } catch .instanceRevoked {
            try await revokedOnline(record)
            throw .instanceRevoked
        }
    }

    /// Asks the provider for this instance's status with the account `session`; a revoked instance goes back to
    /// Installed (hardware key deleted), a Valid instance whose PID the provider marks revoked (a newer instance of
    /// the account took it over) goes back to Operational (PID REV). Returns the provider's view.
    public func refreshStatus(session: String) async throws(WalletInstanceError) -> JSONObject {
        let record = try store.load()
        guard let provider = record.providerURL, let id = record.instanceID else { throw .notActivated }
        let response = try await send(.get, provider + "/api/wallet-instances/" + id, session: session, expect: 200)
        guard let status = (try? JSONValue.parse(response.body))?.objectValue else {
            throw .provider(status: response.status, error: "invalid_response", description: "not a JSON object")
        }
        if status["status"]?.stringValue == "revoked", record.state != .installed {
            try await revokedOnline(record)
        } else if status["pid_status"]?.stringValue == "revoked", record.state == .valid {
            try store.apply(.pidRevoked, at: clock.now())
        }
        return status
    }

    /// Asks the provider to revoke this instance (the user's own request), then applies WI REV.
    public func revoke(session: String) async throws(WalletInstanceError) -> WalletInstanceRecord {
        let record = try store.load()
        guard let provider = record.providerURL, let id = record.instanceID else { throw .notActivated }
        _ = try await send(.post, provider + "/api/wallet-instances/" + id + "/revoke", session: session, expect: 204)
        try await revokedOnline(record)
        return try store.load()
    }

    /// Tells the provider about the instance's PID (`active` makes the account's other instances lose theirs).
    public func reportPID(active: Bool, session: String) async throws(WalletInstanceError) {
        let record = try store.load()
        guard let provider = record.providerURL, let id = record.instanceID else { throw .notActivated }
        let body: JSONObject = ["status": .string(active ? "active" : "none")]
        _ = try await send(.post, provider + "/api/wallet-instances/" + id + "/pid", json: body, session: session, expect: 204)
    }

    private func revokedOnline(_ record: WalletInstanceRecord) async throws(WalletInstanceError) {
        if let keyID = record.hardwareKeyID { await integrity.deleteKey(keyID: keyID) }
        try store.apply(.revoked, at: clock.now()) {
            $0.hardwareKeyID = nil
            $0.walletAttestation = nil
            $0.attestationKeyPEM = nil
            $0.attestationExpiresAt = nil
        }
    }

    struct IssuedAttestation: Sendable {
        let jwt: String
        let keyPEM: String
        let expiresAt: Date
    }

    /// Steps 7–10 of Wallet Attestation issuance: ephemeral key, nonce, client_data, the two proofs, the signed
    /// `war+jwt`, `POST /token`; the answer is checked against the provider's attestation keys (its
    /// `wallet_provider` metadata) and bound to our key.
    private func requestAttestation(_ metadata: ProviderMetadata, keyID: String, tag: String) async throws(WalletInstanceError) -> IssuedAttestation {
        let ephemeral = P256.Signing.PrivateKey()
        let jwk = JWK(publicKey: ephemeral.publicKey)
        let thumbprint = jwk.thumbprintBase64URL()
        let challenge = try await nonce(metadata)
        let clientData = (["challenge": .string(challenge), "jwk_thumbprint": .string(thumbprint)] as JSONObject).serialized()
        let proofs = try await integrity.proofs(keyID: keyID, clientData: clientData)
        let now = Int64(clock.now().timeIntervalSince1970)
        let claims: JSONObject = [
            "iss": .string(thumbprint), "sub": .string(metadata.entityID), "aud": .string(metadata.entityID),
            "challenge": .string(challenge), "hardware_signature": .string(proofs.hardwareSignature),
            "integrity_assertion": .string(proofs.integrityAssertion), "hardware_key_tag": .string(tag),
            "cnf": ["jwk": .object(jwk.jsonObject)], "iat": .integer(now), "exp": .integer(now + 300),
        ]
        let assertion: String
        do {
            assertion = try CompactJWS.sign(header: ["typ": "war+jwt", "kid": .string(thumbprint)], claims: claims, key: .es256(ephemeral)).compact
        } catch {
            throw .integrity("cannot sign the Wallet Attestation Request")
        }
        let request = HTTPRequest.form(
            metadata.tokenEndpoint, [("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion)],
            accept: "application/jwt")
        let response = try await perform(request, expect: 200)
        let jwt = String(decoding: response.body, as: UTF8.self)
        guard let jws = try? CompactJWS(parsing: jwt), jws.type == "wallet-attestation+jwt",
            let key = metadata.attestationKeys.first(where: { $0.kid == jws.keyID }), let verification = try? JWSVerificationKey(jwk: key),
            (try? jws.verify(with: verification)) != nil, let payload = try? jws.payloadJSON(),
            payload["cnf"]?["jwk"]?.objectValue.flatMap({ try? JWK(json: $0) })?.thumbprintBase64URL() == thumbprint,
            let exp = payload["exp"]?.int64Value
        else { throw .provider(status: response.status, error: "invalid_response", description: "the Wallet Attestation does not verify or is not bound to our key") }
        return IssuedAttestation(jwt: jwt, keyPEM: ephemeral.pemRepresentation, expiresAt: Date(timeIntervalSince1970: TimeInterval(exp)))
    }

    private func nonce(_ metadata: ProviderMetadata) async throws(WalletInstanceError) -> String {
        let response = try await perform(HTTPRequest(method: .get, url: metadata.nonceEndpoint), expect: 200)
        guard let nonce = (try? JSONValue.parse(response.body))?["nonce"]?.stringValue else {
            throw .provider(status: response.status, error: "invalid_response", description: "no nonce")
        }
        return nonce
    }

    private func send(
        _ method: HTTPRequest.Method, _ url: String, json: JSONObject? = nil, session: String? = nil, expect: Int = 200
    ) async throws(WalletInstanceError) -> HTTPResponse {
        guard let target = URL(string: url) else { throw .transport("invalid URL \(url)") }
        var headers: [(name: String, value: String)] = []
        if json != nil { headers.append(("Content-Type", "application/json")) }
        if let session { headers.append(("Authorization", "Bearer " + session)) }
        return try await perform(HTTPRequest(method: method, url: target, headers: headers, body: json?.serialized()), expect: expect)
    }

    private func perform(_ request: HTTPRequest, expect: Int) async throws(WalletInstanceError) -> HTTPResponse {
        try await ProviderExchange(http: http).perform(request, expect: expect)
    }
}

extension WalletInstanceRecord {
    fileprivate mutating func keep(_ attestation: WalletInstanceClient.IssuedAttestation) {
        walletAttestation = attestation.jwt
        attestationKeyPEM = attestation.keyPEM
        attestationExpiresAt = attestation.expiresAt
    }
}
