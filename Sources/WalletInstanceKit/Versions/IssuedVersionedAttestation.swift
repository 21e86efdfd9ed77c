import Crypto
import Foundation
import ITWalletProtocol
import TesseraJOSE

/// A provider's answer in one version, verified (``AttestationVerifier``) with that version's own claims:
/// - 1.0: `{"wallet_attestations"}`, the three formats (``WalletAttestations10``); the `jwt` is the one kept.
/// - 1.3: `{"wallet_instance_attestation"}`, `oauth-client-attestation+jwt` with `iss` = the provider and
///   `sub` = the thumbprint of `cnf.jwk` (1.3 "Wallet Instance Attestation", production "1.3.3").
/// - 1.5: `{"wallet_instance_attestation"}` without the need of `iss` (the identity is in `x5c`), `sub` (the Wallet
///   Solution), `wallet_name`, `wallet_link`, and `client_status` (1.5.0 "Wallet Instance Attestation").
struct IssuedVersionedAttestation: Sendable {
    let version: ITWalletVersion
    let jwt: String
    let keyPEM: String
    let verified: AttestationVerifier.Verified
    let formats: [String: String]?
    let clientStatus: ClientStatusReference?

    init(
        version: ITWalletVersion, answer: JSONObject, key: P256.Signing.PrivateKey, entity: ProviderEntity,
        verifier: AttestationVerifier, at now: Date
    ) async throws(AttestationCheckError) {
        let thumbprint = JWK(publicKey: key.publicKey).thumbprintBase64URL()
        self.version = version
        keyPEM = key.pemRepresentation
        switch version {
        case .v0_9:
            throw .wrongType(expected: ITWalletType.walletAttestation, found: nil)
        case .v1_0:
            let attestations = try await WalletAttestations10(answer: answer, verifier: verifier, key: key.publicKey, provider: entity, at: now)
            jwt = attestations.documents["jwt"] ?? ""
            verified = attestations.jwt
            formats = attestations.documents
            clientStatus = nil
        case .v1_3, .v1_5:
            guard let document = answer["wallet_instance_attestation"]?.stringValue else {
                throw .missingClaim("wallet_instance_attestation (the answer's member)")
            }
            let checked = try await verifier.verify(
                document, type: ITWalletType.clientAttestation, boundTo: thumbprint, provider: entity, at: now)
            let claims = checked.claims
            if version == .v1_3 {
                guard claims["iss"]?.stringValue == entity.entityID else { throw .missingClaim("iss (the provider)") }
                guard claims["sub"]?.stringValue == thumbprint else { throw .notBoundToOurKey("sub") }
                clientStatus = nil
            } else {
                for name in ["sub", "wallet_name", "wallet_link"] where claims[name]?.stringValue == nil { throw .missingClaim(name) }
                clientStatus = try ClientStatusReference(claims: claims)
            }
            jwt = document
            verified = checked
            formats = nil
        }
    }

    /// Keeps this attestation in `record` (replacing the previous one).
    func keep(in record: inout WalletInstanceRecord) {
        record.specVersion = version
        record.walletAttestation = jwt
        record.attestationKeyPEM = keyPEM
        record.attestationIssuedAt = verified.issuedAt
        record.attestationExpiresAt = verified.expiresAt
        record.attestationFormats = formats
        record.clientStatus = clientStatus
    }
}

extension WalletInstanceRecord {
    /// The version the instance speaks: the recorded one, or 0.9 for an instance activated before versions were
    /// recorded (the 0.9 `/token` flow was the only one), nil for one never activated.
    var keptVersion: ITWalletVersion? {
        specVersion ?? (walletAttestation != nil ? .v0_9 : nil)
    }
}
