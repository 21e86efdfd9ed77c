import Crypto
import Foundation
import ITWalletProtocol
import TesseraJOSE

/// One element of `keys_to_attest` (1.3: the production client's "Key Attestation Request"; 1.5 §12.1.5 "Key
/// Attestation Element"): a `key-attestation-request+jwt` signed by the key it asks to have attested, `cnf.jwk`,
/// with `wscd_key_attestation` = `{storage_type, attestation?, integrity_assertion?}`.
struct KeyAttestationElement: Sendable {
    /// An Android attestation chain, base64 twice and line-wrapped, is about 8 KB; an App Attest assertion far less.
    static let maxLength = 32 * 1024
    /// The only key storage a mobile instance attests: keys in the device's own keystore / Secure Enclave.
    static let storageType = "LOCAL_NATIVE"

    let position: Int
    let jws: CompactJWS
    let key: JWK
    let publicKey: P256.Signing.PublicKey
    let thumbprint: String
    /// `wscd_key_attestation.attestation`: Android, the OEM key attestation of `cnf.jwk` (a `KeyAttestationEvidence`
    /// chain) whose challenge is the nonce.
    let androidAttestation: String?
    /// `wscd_key_attestation.integrity_assertion`: iOS in 1.5, an App Attest assertion over `client_data`.
    let integrityAssertion: String?
    let iat: Date
    let exp: Date

    init(_ compact: String, position: Int) throws(AttestationRequestError) {
        let name = "keys_to_attest[\(position)]"
        guard compact.utf8.count <= Self.maxLength,
            let jws = try? CompactJWS(parsing: compact, limits: JOSELimits(maxCompactLength: Self.maxLength, json: .default))
        else { throw .malformed("\(name) is not a compact JWS of at most \(Self.maxLength) bytes") }
        guard jws.type == ITWalletType.keyAttestationRequestElement else {
            throw .malformed("\(name) must have typ \(ITWalletType.keyAttestationRequestElement)")
        }
        guard jws.algorithm.rawValue == "ES256" else { throw .malformed("\(name) must be signed with ES256") }
        guard let claims = try? jws.payloadJSON() else { throw .malformed("\(name)'s payload is not a JSON object") }
        guard let object = claims["cnf"]?["jwk"]?.objectValue, let key = try? JWK(json: object), !key.isPrivate,
            case .es256(let publicKey)? = try? JWSVerificationKey(jwk: key)
        else { throw .malformed("\(name).cnf.jwk is missing or not a public P-256 JWK") }
        let thumbprint = key.thumbprintBase64URL()
        // The production client writes kid = the thumbprint (into cnf.jwk too); io-wallet accepts any kid equal to
        // cnf.jwk's own.
        guard let kid = jws.keyID, kid == thumbprint || kid == key.kid else {
            throw .malformed("\(name)'s kid must be the thumbprint of its cnf.jwk (or that key's kid)")
        }
        guard let wscd = claims["wscd_key_attestation"]?.objectValue,
            wscd["storage_type"]?.stringValue == Self.storageType
        else { throw .malformed("\(name).wscd_key_attestation.storage_type must be \(Self.storageType)") }
        func member(_ member: String) throws(AttestationRequestError) -> String? {
            guard let value = wscd[member] else { return nil }
            guard let text = value.stringValue, !text.isEmpty else {
                throw .malformed("\(name).wscd_key_attestation.\(member) is not a non-empty string")
            }
            return text
        }
        let reader = ClaimReader(claims: claims, context: name + ".")
        self.position = position
        self.jws = jws
        self.key = key
        self.publicKey = publicKey
        self.thumbprint = thumbprint
        androidAttestation = try member("attestation")
        integrityAssertion = try member("integrity_assertion")
        iat = try reader.time("iat")
        exp = try reader.time("exp")
    }

    /// Signed by the key it attests (1.5 §12.1.5: "MUST be signed with the private key … it attests").
    func verifySignature() throws(AttestationRequestError) {
        do {
            try jws.verify(with: .es256(publicKey))
        } catch {
            throw .keysToAttest("keys_to_attest[\(position)] is not signed by its cnf.jwk")
        }
    }
}
