import Crypto
import Foundation
import TesseraCore
import TesseraJOSE

/// The answer to `app.bootstrap`: a compact JWS (RFC 7515), `alg: EdDSA` (RFC 8037), `typ: vault-bootstrap+jwt`
/// (explicit typing, RFC 8725 §3.11), signed by the vault's Ed25519 identity key; the payload is the
/// `VaultEventResponse` JSON. It travels on a subject the bus operator could write to, so the app trusts it only
/// through the signature and the binding checks of `verify`.
public enum SignedBootstrapReply {
    public static let typ = "vault-bootstrap+jwt"
    /// How far the reply's timestamp may be from the app's clock.
    public static let maxSkew: Int64 = 300
    /// A response of 256 KiB in base64url, plus header and signature.
    static let limits = JOSELimits(maxCompactLength: 360 * 1024, json: JSONLimits(maxBytes: 4096, maxDepth: 4), maxX5CCertificates: 0)

    public static func sign(_ response: VaultEventResponse, identityKey: Curve25519.Signing.PrivateKey) throws(VaultProtocolError) -> String {
        do {
            return try CompactJWS.sign(header: ["typ": .string(typ)], payload: response.encoded(), key: .edDSA(identityKey)).compact
        } catch {
            throw .signingFailed
        }
    }

    /// Verifies the EdDSA signature with the identity key from the ledger, then the binding: `event_id` ==
    /// `requestID`, `success` (a signed failure throws `eventFailed`), the result parses with
    /// `encryption_enabled: true`, `session_info.app_session_public_key` == `appSessionPublicKey`, and
    /// |timestamp − now| ≤ 300 s. The payload is parsed from the bytes the signature covers.
    public static func verify(
        _ compact: String, identityPublicKey: Data, requestID: String, appSessionPublicKey: Data, now: Date
    ) throws(VaultProtocolError) -> BootstrapResult {
        guard let identity = try? Curve25519.Signing.PublicKey(rawRepresentation: identityPublicKey) else {
            throw .invalidKey("the identity key is not a 32-byte Ed25519 public key")
        }
        let jws: CompactJWS
        do {
            jws = try CompactJWS(parsing: compact, limits: limits)
        } catch {
            // alg none, HS256 and other algorithms stop here, before any key is used (RFC 8725 §3.1).
            switch error {
            case .algorithmNone, .unsupportedAlgorithm, .missingAlgorithm: throw .badSignature
            default: throw .malformed("the bootstrap reply is not a compact JWS (\(error))")
            }
        }
        guard jws.algorithm == .edDSA else { throw .badSignature }
        guard jws.type == typ else { throw .malformed("the bootstrap reply's typ is not \(typ)") }
        do {
            try jws.verify(with: .edDSA(identity))
        } catch {
            throw .badSignature
        }

        let response = try VaultEventResponse(json: jws.payload)
        guard response.eventID == requestID else { throw .bindingMismatch("event_id is not the request's id") }
        guard response.success else {
            throw .eventFailed(response.error ?? VaultEventError(code: "unknown", message: ""))
        }
        guard let resultJSON = response.result else { throw .malformed("the bootstrap reply has no result") }
        let result = try BootstrapResult(json: resultJSON)
        guard result.sessionInfo.encryptionEnabled else { throw .malformed("session_info.encryption_enabled must be true") }
        guard ConstantTime.equal(result.sessionInfo.appSessionPublicKey, appSessionPublicKey) else {
            throw .bindingMismatch("the echoed app_session_public_key is not this request's key")
        }
        let seconds = now.timeIntervalSince1970
        guard seconds.isFinite, abs(Double(response.timestamp) - seconds) <= Double(maxSkew) else {
            throw .bindingMismatch("the timestamp is more than \(maxSkew) s from this clock")
        }
        return result
    }
}
