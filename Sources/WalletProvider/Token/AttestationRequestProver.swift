import Crypto
import DeviceAttestation
import Foundation
import ServiceSupport
import TesseraJOSE

/// Checks an attestation request of any version and commits its single-use values, for every attestation endpoint.
/// Stateless checks first, in the texts' order (header, signature by `cnf.jwk` and by every key to attest, times,
/// audience, `iss`), then the registered instance (valid, same platform, a served Wallet Solution), the keys' own
/// attestations, the hardware proofs over `client_data` with the registered key and the integrity verdicts for that
/// same `client_data`, the posture. Then one transaction: the nonce is consumed (`DELETE … RETURNING`), the
/// instance row is claimed (`UPDATE … WHERE status = 'valid'`, moving the App Attest counter), and the caller's
/// writes (status list entries) run; of concurrent requests with one nonce exactly one commits, and a revocation
/// either precedes the claim (refused) or waits for the commit (and then flips what was allocated).
struct AttestationRequestProver: Sendable {
    let configuration: WalletProviderConfiguration
    let baseURL: String
    let db: ProviderSQL
    let instances: InstanceStore
    /// Built once: it parses the policy's trusted roots.
    let appAttestVerifier: AppAttestVerifier

    /// A request that passed every check, with what the documents need.
    struct Proven: Sendable {
        let request: WalletAttestationRequest
        let instance: WalletInstanceRow
        /// The instant the request was checked at (the documents' `iat`).
        let now: Date
        /// Key Attestation requests: each key's `key_storage` level, in `keys_to_attest` order.
        let keyStorage: [ResistanceLevel]
    }

    /// Proves `assertion` (one of `types`) and runs `commit` inside the request's transaction. Errors are answered
    /// from `table`.
    func prove<Committed: Sendable>(
        assertion: String, accepting types: Set<WalletAttestationRequest.RequestType>,
        table: AttestationRequestError.ErrorTable,
        commit: @escaping @Sendable (ServiceSQL, Proven) async throws -> Committed
    ) async throws(WireError) -> (Proven, Committed) {
        do {
            let checked = try await check(assertion: assertion, accepting: types)
            let proven = Proven(request: checked.request, instance: checked.instance, now: checked.now, keyStorage: checked.keyStorage)
            let counter = checked.counter.map { Int64($0) }
            let committed = try await db.transaction(rollback: AttestationRequestError.self) { tx in
                guard try await NonceStore(db: tx).consume(proven.request.challenge, now: proven.now) else {
                    throw AttestationRequestError.nonce
                }
                guard try await InstanceStore(db: tx).claim(
                    id: proven.instance.id, counter: counter, walletSolutionVersion: proven.request.solution?.solutionVersion)
                else {
                    throw counter == nil ? AttestationRequestError.revoked : .hardwareProof("the App Attest counter was already used")
                }
                return try await commit(tx, proven)
            }
            return (proven, committed)
        } catch let error as AttestationRequestError {
            throw error.wire(table)
        } catch let error as WireError {
            throw error
        } catch {
            throw WireError.server
        }
    }

    /// What the checks before the transaction established.
    private struct Checked: Sendable {
        let request: WalletAttestationRequest
        let instance: WalletInstanceRow
        let now: Date
        let keyStorage: [ResistanceLevel]
        /// iOS: the App Attest counter to store.
        let counter: UInt32?
    }

    private func check(
        assertion: String, accepting types: Set<WalletAttestationRequest.RequestType>
    ) async throws -> Checked {
        let now = configuration.clock.now()
        let request = try WalletAttestationRequest(assertion: assertion, accepting: types)
        try request.verifySignature()
        try request.checkTimes(now: now)
        try request.checkAudience(provider: baseURL)
        _ = try request.checkIssuer(provider: baseURL)
        let instance = try await validInstance(tag: request.hardwareKeyTag)
        try request.solution?.check(solutionIDs: configuration.walletSolution.solutionIDs, registeredPlatform: instance.platform)
        var keyStorage: [ResistanceLevel] = []
        if let keys = request.keysToAttest {
            keyStorage = try KeyStorageProofs.check(
                keys, platform: instance.platform, nonce: request.challenge, policy: configuration.android,
                posture: configuration.posture, at: now)
        }
        guard let jwkText = instance.public_key, let jwk = try? JWK(parsing: Array(jwkText.utf8)),
            case .es256(let hardwareKey)? = try? JWSVerificationKey(jwk: jwk)
        else { throw WireError.server }
        let counter = try await checkProofs(request, instance: instance, hardwareKey: hardwareKey, now: now)
        try checkPosture(instance)
        return Checked(request: request, instance: instance, now: now, keyStorage: keyStorage, counter: counter)
    }

    private func validInstance(tag: String) async throws -> WalletInstanceRow {
        let id = InstanceStore.instanceID(hardwareKeyTag: tag)
        guard let instance = try await instances.find(id: id) else { throw AttestationRequestError.unknownInstance }
        guard instance.status == InstanceStatus.valid.rawValue, instance.hardware_key_tag == tag else {
            throw AttestationRequestError.revoked
        }
        return instance
    }

    /// The hardware proofs; iOS returns the App Attest counter to store.
    private func checkProofs(
        _ request: WalletAttestationRequest, instance: WalletInstanceRow, hardwareKey: P256.Signing.PublicKey, now: Date
    ) async throws -> UInt32? {
        let candidates = request.clientDataCandidates
        let previous = UInt32(clamping: instance.sign_count)
        switch instance.platform {
        case "ios":
            // The App Attest key is the hardware key: its assertion is both the signature and the integrity proof.
            guard let authenticatorData = request.integrityAssertion else {
                // 1.5 Key Attestation: no top-level integrity_assertion; each key carries its own assertion.
                let keys = request.keysToAttest?.elements ?? []
                return try HardwareProofs.appAttestPerKey(
                    hardwareSignature: request.hardwareSignature, elements: keys, candidates: candidates, key: hardwareKey,
                    previousCounter: previous, verifier: appAttestVerifier
                ).counter
            }
            // One proof form per request: with the split assertion at the top, the keys carry none of their own.
            if let key = request.keysToAttest?.elements.first(where: { $0.integrityAssertion != nil }) {
                throw AttestationRequestError.keysToAttest(
                    "keys_to_attest[\(key.position)] carries an integrity_assertion beside the request's own")
            }
            return try HardwareProofs.appAttest(
                signature: request.hardwareSignature, authenticatorData: authenticatorData, candidates: candidates,
                key: hardwareKey, previousCounter: previous, verifier: appAttestVerifier
            ).assertion.counter
        default:
            let proof = try HardwareProofs.androidSignature(request.hardwareSignature, candidates: candidates, key: hardwareKey)
            // 1.5 Key Attestation: without a top-level integrity_assertion the provider relies on the instance being
            // valid (its flow: "checks the revocation status of the Wallet Instance Attestation instead").
            guard let token = request.integrityAssertion else { return nil }
            guard let integrity = configuration.androidIntegrity else {
                throw AttestationRequestError.integrityAssertion("no Android integrity verifier is configured")
            }
            do {
                // Play Integrity's requestHash is hex SHA-256 of the same client_data the hardware key signed.
                try await integrity.verify(
                    integrityToken: token, clientDataHash: proof.clientData.hash,
                    packageNames: configuration.apps.android.map(\.packageName), at: now)
            } catch {
                let text = "integrity_assertion: \(error.description)"
                throw error.kind == .verdictFailed ? AttestationRequestError.integrityCheck(text) : .integrityAssertion(text)
            }
            return nil
        }
    }

    /// The stored device facts against today's posture policy (a policy may have tightened since registration).
    private func checkPosture(_ instance: WalletInstanceRow) throws(AttestationRequestError) {
        guard instance.platform == "android", let minimum = configuration.posture.minimumAndroidPatchLevel else { return }
        let device = (try? JSONValue.parse(instance.device))?.objectValue
        guard let patch = device?["os_patch_level"]?.int64Value, patch >= minimum else {
            throw .integrityCheck("device posture: security patch level older than \(minimum)")
        }
    }
}
