import Foundation
import ITWalletProtocol
import TesseraJOSE
import X509

/// What the wallet checks in every attestation its provider issues, before it keeps it: the `x5c` chain to a
/// configured trust anchor (the provider's signing root) and the signature by its leaf; the leaf's key is one the
/// provider's Entity Configuration publishes in its metadata `jwks` (keys never come from the document's own
/// `cnf`); `typ`; `cnf.jwk` is the key the wallet sent; `exp` is in the future and at most 24 h after `iat`
/// (IT-Wallet 1.0–1.5: the Wallet (Instance) Attestation "MUST NOT" live longer than 24 hours).
public struct AttestationVerifier: Sendable {
    /// The trust anchors for the provider's `x5c` (its signing root).
    public let anchors: [Certificate]
    /// The longest life the wallet accepts.
    public static let maximumLifetime: Int64 = 86_400

    /// A verifier trusting `anchors` (the provider's signing root or roots).
    public init(anchors: [Certificate]) { self.anchors = anchors }

    /// A verified JWT: its header and claims, and its validity.
    public struct Verified: Sendable {
        /// The JOSE header as received (`typ`, `kid`, `x5c`, `trust_chain`).
        public let header: JSONObject
        /// The payload claims as received.
        public let claims: JSONObject
        /// Its `iat`.
        public let issuedAt: Date
        /// Its `exp`.
        public let expiresAt: Date
    }

    /// Checks the signed JWT `jwt` (a WIA, the 1.0 `jwt` or the issuer part of the 1.0 `dc+sd-jwt`).
    public func verify(
        _ jwt: some StringProtocol, type: String, boundTo thumbprint: String, provider: ProviderEntity, at now: Date
    ) async throws(AttestationCheckError) -> Verified {
        let (jws, claims) = try await signed(jwt, type: type, provider: provider, at: now)
        guard let cnf = claims["cnf"]?["jwk"]?.objectValue, let jwk = try? JWK(json: cnf) else { throw .missingClaim("cnf.jwk") }
        guard jwk.thumbprintBase64URL() == thumbprint else { throw .notBoundToOurKey(type) }
        let (iat, exp) = try Self.validity(claims, at: now)
        return Verified(header: jws.header, claims: claims, issuedAt: iat, expiresAt: exp)
    }

    /// `typ`, then the `x5c` chain to the anchors, the signature by its leaf, and the leaf's key published by the
    /// provider; returns the JWS and its claims.
    public func signed(
        _ jwt: some StringProtocol, type: String, provider: ProviderEntity, at now: Date
    ) async throws(AttestationCheckError) -> (CompactJWS, JSONObject) {
        guard let jws = try? CompactJWS(parsing: jwt), let claims = try? jws.payloadJSON() else { throw .notJWS("the attestation") }
        guard jws.type == type else { throw .wrongType(expected: type, found: jws.type) }
        let leaf: Certificate
        do {
            leaf = try await jws.verifyX5C(anchors: anchors, at: now)
        } catch {
            throw .untrustedSignature(["\(error)"])
        }
        try Self.published(leaf, by: provider)
        return (jws, claims)
    }

    /// The `x5c` leaf's key must be one of the provider's published attestation keys.
    static func published(_ leaf: Certificate, by provider: ProviderEntity) throws(AttestationCheckError) {
        guard let key = try? JWSVerificationKey(certificate: leaf), let thumbprint = (try? key.jwk)?.thumbprintBase64URL(),
            provider.attestationKeys.contains(where: { $0.thumbprintBase64URL() == thumbprint })
        else { throw .untrustedSignature(["the x5c leaf key is not in the provider's metadata jwks"]) }
    }

    /// `iat` and `exp` present, `exp` after `now`, at most 24 h apart.
    static func validity(_ claims: JSONObject, at now: Date) throws(AttestationCheckError) -> (Date, Date) {
        guard let iat = claims["iat"]?.int64Value else { throw .missingClaim("iat") }
        guard let exp = claims["exp"]?.int64Value else { throw .missingClaim("exp") }
        guard Date(timeIntervalSince1970: TimeInterval(exp)) > now else { throw .expired }
        guard exp - iat <= maximumLifetime else { throw .lifetimeTooLong(seconds: exp - iat) }
        return (Date(timeIntervalSince1970: TimeInterval(iat)), Date(timeIntervalSince1970: TimeInterval(exp)))
    }
}
