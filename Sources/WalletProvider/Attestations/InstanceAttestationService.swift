import Foundation
import ITWalletProtocol
import ServiceSupport
import TesseraJOSE
import TokenStatusList

/// Wallet Instance Attestations and Key Attestations of 1.3 (as the production client and backend run it) and 1.5:
/// the request is proven by `AttestationRequestProver` (errors from the IT-Wallet table), the status list entry is
/// allocated in the same transaction as the nonce and the instance claim, and the document is signed with the
/// signing identity (`x5c`, `trust_chain`).
struct InstanceAttestationService: Sendable {
    let configuration: WalletProviderConfiguration
    let baseURL: String
    let prover: AttestationRequestProver
    let signer: AttestationSigner

    /// `wia-request+jwt` at the version's endpoint → the Wallet Instance Attestation.
    func walletInstanceAttestation(assertion: String, version: ITWalletVersion) async throws(WireError) -> String {
        let solution = configuration.walletSolution
        let lifetime = configuration.attestationLifetime
        guard version == .v1_5 else {
            let (proven, _) = try await prover.prove(assertion: assertion, accepting: [.walletInstance], table: .itWallet) { _, _ in () }
            let claims = WalletInstanceAttestation.v1_3(
                issuer: baseURL, key: proven.request.ephemeralKey, solution: solution, now: proven.now, lifetime: lifetime)
            return try sign(ITWalletType.clientAttestation, claims)
        }
        let horizon = configuration.keyAttestationLifetime
        let (proven, entry) = try await prover.prove(assertion: assertion, accepting: [.walletInstance], table: .itWallet) { tx, proven in
            try await store(tx).walletInstanceEntry(
                instanceID: proven.instance.id, until: proven.now.addingTimeInterval(horizon), now: proven.now)
        }
        let claims = WalletInstanceAttestation.v1_5(
            key: proven.request.ephemeralKey, solution: solution, status: statusClaim(entry),
            statusMaintainedUntil: entry.maintainedUntil, now: proven.now, lifetime: lifetime)
        return try sign(ITWalletType.clientAttestation, claims)
    }

    /// `wua-request+jwt` (1.3) or `ka-request+jwt` (1.5) → the Key Attestation, with a fresh status list entry kept
    /// as long as it is valid.
    func keyAttestation(assertion: String, version: ITWalletVersion) async throws(WireError) -> String {
        let lifetime = configuration.keyAttestationLifetime
        let type: WalletAttestationRequest.RequestType = version == .v1_5 ? .keyAttestation : .walletUnit
        let (proven, entry) = try await prover.prove(assertion: assertion, accepting: [type], table: .itWallet) { tx, proven in
            // 1.5: a Key Attestation speaks for keys of one storage; keys of several need one request each.
            if version == .v1_5, Set(proven.keyStorage).count > 1 {
                throw AttestationRequestError.keysToAttest("the keys are in different key storages: ask for one Key Attestation per storage")
            }
            return try await store(tx).allocate(
                instanceID: proven.instance.id, purpose: .keyAttestation, until: proven.now.addingTimeInterval(lifetime),
                now: proven.now)
        }
        let keys = proven.request.keysToAttest?.elements.map(\.key) ?? []
        guard version == .v1_5 else {
            return try sign(ITWalletType.keyAttestation, KeyAttestation.v1_3(
                issuer: baseURL, keys: keys, keyStorage: proven.keyStorage, status: statusClaim(entry), now: proven.now,
                lifetime: lifetime))
        }
        guard let level = proven.keyStorage.first else { throw WireError.server }
        return try sign(ITWalletType.keyAttestation, KeyAttestation.v1_5(
            keys: keys, keyStorage: level, status: statusClaim(entry), statusMaintainedUntil: entry.maintainedUntil,
            now: proven.now, lifetime: lifetime))
    }

    private func store(_ tx: ServiceSQL) -> StatusListStore {
        StatusListStore(db: tx, random: configuration.random, capacity: configuration.statusListCapacity)
    }

    /// `{"status_list": {"idx", "uri"}}` (TSL §6.2), the uri being the list's exact URL here.
    private func statusClaim(_ entry: StatusAllocation) -> JSONValue {
        StatusListReference(index: entry.index, uri: StatusListService.uri(listID: entry.listID, baseURL: baseURL)).claim
    }

    private func sign(_ typ: String, _ claims: JSONObject) throws(WireError) -> String {
        try signer.sign(typ: typ, claims: claims, carrying: [.x5c, .trustChain])
    }
}
