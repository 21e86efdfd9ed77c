import Crypto
import Foundation
import ITWalletProtocol
import TesseraJOSE
import X509

/// The wallet side of IT-Wallet 0.9, 1.0, 1.3 and 1.5 side by side: reads the provider's Entity Configuration,
/// picks the newest version both sides speak (or the forced one), activates, obtains and verifies each version's
/// attestation, keeps it, renews it before it expires (``RefreshPolicy``) and, in 1.5, reads its own
/// `client_status` at each renewal: INVALID is the lifecycle's WI REV (Installed, hardware key deleted), as a
/// revocation the provider reports online. 0.9 goes through ``WalletInstanceClient``'s `/token` flow.
public struct WalletInstanceAttester: Sendable {
    /// The lifecycle store, integrity service, HTTP client and clock.
    public let client: WalletInstanceClient
    /// The provider's signing root(s) every attestation and status list must chain to.
    public let verifier: AttestationVerifier
    /// `platform`, `wallet_solution_id`, `wallet_solution_version` for 1.3/1.5 requests.
    public let solution: WalletSolutionIdentity
    /// When the kept attestation is renewed.
    public let refresh: RefreshPolicy

    /// An attester for `client`'s instance, trusting `anchors` for what the provider signs.
    public init(client: WalletInstanceClient, anchors: [Certificate], solution: WalletSolutionIdentity, refresh: RefreshPolicy = RefreshPolicy()) {
        self.client = client
        verifier = AttestationVerifier(anchors: anchors)
        self.solution = solution
        self.refresh = refresh
    }

    var exchange: ProviderExchange { ProviderExchange(http: client.http) }

    /// The provider's Entity Configuration, checked.
    public func discover(provider: String) async throws(WalletInstanceError) -> ProviderEntity {
        let base = provider.hasSuffix("/") ? String(provider.dropLast()) : provider
        guard let url = URL(string: base + ITWalletEndpoint.entityConfiguration) else { throw .transport("invalid URL \(base)") }
        let response = try await exchange.get(url)
        return try ProviderEntity(entityConfiguration: String(decoding: response.body, as: UTF8.self), expectedEntityID: base, at: client.clock.now())
    }

    /// The version to speak with `provider`: `forced` if it advertises it, else the newest in common.
    public func negotiate(_ provider: ProviderEntity, forced: ITWalletVersion?) throws(WalletInstanceError) -> ITWalletVersion {
        do {
            return try SpecNegotiation.choose(advertised: provider.versions, forced: forced)
        } catch {
            throw .attestation(error)
        }
    }

    /// WI ACT in the negotiated version: nonce, a new attested hardware key (the previous one deleted), registration
    /// at `/wallet-instances` under `session`, the first attestation, verified ⇒ Operational.
    public func activate(provider: String, session: String, spec: ITWalletVersion? = nil) async throws(WalletInstanceError) -> WalletInstanceRecord {
        let entity = try await discover(provider: provider)
        let version = try negotiate(entity, forced: spec)
        if version == .v0_9 {
            _ = try await client.activate(provider: provider, session: session)
            return try update(keptAs09)
        }
        let current = try client.store.load()
        guard current.state.after(.activated) != nil else { throw .illegalTransition(from: current.state, event: .activated) }
        if let old = current.hardwareKeyID { await client.integrity.deleteKey(keyID: old) }
        let challenge = try await exchange.nonce(try entity.url(ITWalletEndpoint.nonce))
        let key = try await client.integrity.createAttestedKey(challenge: challenge)
        var record = current
        record.providerURL = entity.entityID
        record.hardwareKeyID = key.keyID
        record.hardwareKeyTag = key.hardwareKeyTag
        record.specVersion = version
        try client.store.save(record)
        let body: JSONObject = [
            "challenge": .string(challenge), "key_attestation": .string(key.keyAttestation),
            "hardware_key_tag": .string(key.hardwareKeyTag),
        ]
        _ = try await exchange.postJSON(try entity.url(ITWalletEndpoint.registration), body, session: session, expect: 204)
        let issued = try await obtain(version, from: entity, record: record)
        return try client.store.apply(.activated, at: client.clock.now()) { issued.keep(in: &$0) }
    }

    /// A fresh attestation in the instance's version (or `spec`, which must be advertised), verified and kept.
    public func attest(spec: ITWalletVersion? = nil) async throws(WalletInstanceError) -> WalletInstanceRecord {
        let record = try activeRecord()
        guard let provider = record.providerURL else { throw .notActivated }
        let entity = try await discover(provider: provider)
        let version = try negotiate(entity, forced: spec ?? record.keptVersion)
        if version == .v0_9 {
            do {
                _ = try await client.reissue()
            } catch .instanceRevoked {
                throw .instanceRevoked
            }
            return try update(keptAs09)
        }
        do {
            let issued = try await obtain(version, from: entity, record: record)
            return try update { issued.keep(in: &$0) }
        } catch .instanceRevoked {
            try await revokedOnline()
            throw .instanceRevoked
        }
    }

    /// What ``refreshIfNeeded()`` did.
    public enum RefreshOutcome: Sendable, Equatable {
        /// The kept attestation is current and (1.5) its entry VALID.
        case current
        /// A new attestation was obtained.
        case renewed
        /// The provider revoked the instance (its status entry, or its refusal): WI REV was applied.
        case revoked
    }

    /// The renewal the wallet runs before using its attestation: in 1.5 the kept WIA's `client_status` is read
    /// first (INVALID ⇒ WI REV); then a new attestation is obtained when ``RefreshPolicy`` says it is due.
    @discardableResult
    public func refreshIfNeeded() async throws(WalletInstanceError) -> RefreshOutcome {
        let record = try activeRecord()
        let now = client.clock.now()
        if let reference = record.clientStatus {
            let reading = try await readClientStatus(reference)
            if !reading.isValid {
                try await revokedOnline()
                return .revoked
            }
        }
        guard refresh.isDue(issuedAt: record.attestationIssuedAt, expiresAt: record.attestationExpiresAt, at: now) else { return .current }
        do {
            _ = try await attest()
        } catch .instanceRevoked {
            return .revoked
        }
        return .renewed
    }

    /// The instance's entry in its provider's status list (1.5), verified.
    public func readClientStatus(_ reference: ClientStatusReference) async throws(WalletInstanceError) -> ClientStatusReading {
        try await ClientStatusChecker(exchange: exchange, verifier: verifier).read(reference, at: client.clock.now())
    }

    // MARK: Steps

    func activeRecord() throws(WalletInstanceError) -> WalletInstanceRecord {
        let record = try client.store.load()
        guard record.state == .operational || record.state == .valid, record.providerURL != nil, record.hardwareKeyID != nil,
            record.hardwareKeyTag != nil
        else { throw .notActivated }
        return record
    }

    func update(_ change: (inout WalletInstanceRecord) -> Void) throws(WalletInstanceError) -> WalletInstanceRecord {
        var record = try client.store.load()
        change(&record)
        try client.store.save(record)
        return record
    }

    /// After the 0.9 flow kept its `wallet-attestation+jwt`: the version, its `iat`, and nothing of another version.
    func keptAs09(_ record: inout WalletInstanceRecord) {
        record.specVersion = .v0_9
        record.attestationFormats = nil
        record.clientStatus = nil
        let iat = record.walletAttestation.flatMap { try? CompactJWS(parsing: $0).payloadJSON()["iat"]?.int64Value }
        record.attestationIssuedAt = iat.map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// WI REV seen online: the hardware key is deleted and the kept attestations forgotten.
    func revokedOnline() async throws(WalletInstanceError) {
        let record = try client.store.load()
        if let keyID = record.hardwareKeyID { await client.integrity.deleteKey(keyID: keyID) }
        try client.store.apply(.revoked, at: client.clock.now()) {
            $0.hardwareKeyID = nil
            $0.walletAttestation = nil
            $0.attestationKeyPEM = nil
            $0.attestationExpiresAt = nil
            $0.attestationIssuedAt = nil
            $0.attestationFormats = nil
            $0.clientStatus = nil
        }
    }

    /// One attestation of `version` (1.0, 1.3, 1.5): a new attestation key, the request, the answer verified.
    func obtain(_ version: ITWalletVersion, from entity: ProviderEntity, record: WalletInstanceRecord) async throws(WalletInstanceError) -> IssuedVersionedAttestation {
        guard let keyID = record.hardwareKeyID, let tag = record.hardwareKeyTag else { throw .notActivated }
        let key = P256.Signing.PrivateKey()
        let nonce = try await exchange.nonce(try entity.url(ITWalletEndpoint.nonce))
        let builder = AttestationRequestBuilder(integrity: client.integrity, solution: solution, hardwareKeyID: keyID, hardwareKeyTag: tag)
        let now = client.clock.now()
        let request = try await builder.request(version, provider: entity.entityID, nonce: nonce, key: key, at: now)
        let url = try entity.url(ITWalletEndpoint.attestation(version))
        // 1.3: the production client's raw text/plain body; 1.0 and 1.5: the texts' JSON {"assertion"}.
        let response = version == .v1_3
            ? try await exchange.postRaw(url, jwt: request)
            : try await exchange.postJSON(url, ["assertion": .string(request)])
        let answer = try ProviderExchange.object(response)
        do {
            return try await IssuedVersionedAttestation(
                version: version, answer: answer, key: key, entity: entity, verifier: verifier, at: client.clock.now())
        } catch {
            throw .attestation(error)
        }
    }
}
