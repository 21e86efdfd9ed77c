import Foundation
import ITWalletProtocol
import TesseraJOSE

extension WalletInstanceAttester {
    /// A Key Attestation for `count` new wallet keys (1.3 at `/key-attestations`, 1.5 at `/key-attestation`), in the
    /// instance's version or `spec`: the answer `{"key_attestation"}` is a `key-attestation+jwt` whose `x5c` chains
    /// to the anchors, whose `attested_keys` are exactly our keys in order, current, with its status entry
    /// (1.3 `status`, 1.5 `key_storage_status`). Kept in the record and returned.
    public func keyAttest(keys: any WalletKeyAttesting, count: Int = 1, spec: ITWalletVersion? = nil) async throws(WalletInstanceError) -> KeptKeyAttestation {
        let record = try activeRecord()
        guard let provider = record.providerURL, let hardwareKeyID = record.hardwareKeyID, let tag = record.hardwareKeyTag else {
            throw .notActivated
        }
        let entity = try await discover(provider: provider)
        let version = try keyAttestationVersion(entity, forced: spec, kept: record.keptVersion)
        guard let path = ITWalletEndpoint.keyAttestation(version) else { throw .attestation(.keyAttestationUnavailable(version)) }
        guard count >= 1, count <= 16 else { throw .integrity("between 1 and 16 keys per request") }
        let nonce = try await exchange.nonce(try entity.url(ITWalletEndpoint.nonce))
        var walletKeys: [AttestedWalletKey] = []
        for _ in 0..<count { walletKeys.append(try await keys.createWalletKey(challenge: nonce)) }
        let builder = KeyAttestationRequest(
            integrity: client.integrity, keys: keys, solution: solution, hardwareKeyID: hardwareKeyID, hardwareKeyTag: tag)
        let request = try await builder.request(version, nonce: nonce, walletKeys: walletKeys, at: client.clock.now())
        let url = try entity.url(path)
        let response = version == .v1_3
            ? try await exchange.postRaw(url, jwt: request)
            : try await exchange.postJSON(url, ["assertion": .string(request)])
        guard let document = try ProviderExchange.object(response)["key_attestation"]?.stringValue else {
            throw .attestation(.missingClaim("key_attestation (the answer's member)"))
        }
        let expiresAt: Date
        do {
            expiresAt = try await checkKeyAttestation(document, version: version, keys: walletKeys, entity: entity)
        } catch {
            throw .attestation(error)
        }
        let kept = KeptKeyAttestation(version: version.rawValue, jwt: document, keyIDs: walletKeys.map(\.keyID), expiresAt: expiresAt)
        _ = try update { $0.keyAttestations = ($0.keyAttestations ?? []) + [kept] }
        return kept
    }

    /// A forced version must be advertised and have Key Attestation; else the instance's version when it has one,
    /// else the newest advertised version that has.
    func keyAttestationVersion(_ entity: ProviderEntity, forced: ITWalletVersion?, kept: ITWalletVersion?) throws(WalletInstanceError) -> ITWalletVersion {
        if let forced {
            let version = try negotiate(entity, forced: forced)
            guard version.hasKeyAttestation else { throw .attestation(.keyAttestationUnavailable(version)) }
            return version
        }
        if let kept, kept.hasKeyAttestation, entity.versions.contains(kept) { return kept }
        guard let newest = entity.versions.filter(\.hasKeyAttestation).max() else { throw .attestation(.keyAttestationUnavailable(nil)) }
        return newest
    }

    private func checkKeyAttestation(
        _ document: String, version: ITWalletVersion, keys: [AttestedWalletKey], entity: ProviderEntity
    ) async throws(AttestationCheckError) -> Date {
        let now = client.clock.now()
        let (_, claims) = try await verifier.signed(document, type: ITWalletType.keyAttestation, provider: entity, at: now)
        let attested = (claims["attested_keys"]?.arrayValue ?? []).map { $0.objectValue.flatMap { try? JWK(json: $0) }?.thumbprintBase64URL() }
        guard attested == keys.map({ Optional(JWK(publicKey: $0.publicKey).thumbprintBase64URL()) }) else {
            throw .notBoundToOurKey("attested_keys")
        }
        guard let exp = claims["exp"]?.int64Value else { throw .missingClaim("exp") }
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(exp))
        guard expiresAt > now else { throw .expired }
        let status = version == .v1_5 ? claims["key_storage_status"]?["status"] : claims["status"]
        guard status?["status_list"]?["uri"]?.stringValue != nil else {
            throw .missingClaim(version == .v1_5 ? "key_storage_status.status.status_list" : "status.status_list")
        }
        return expiresAt
    }
}
