import Crypto
import Foundation
import ITWalletProtocol
import MDoc
import SDJWT
import TesseraCOSE
import TesseraCore
import TesseraJOSE
import TesseraTrust
import X509

/// The IT-Wallet 1.0 answer `{"wallet_attestations": [{"format", "wallet_attestation"}]}` (1.0 "Wallet Attestation
/// Issuance"), each format checked on its own and all bound to the same `cnf` key with the same validity:
/// - `jwt`: `oauth-client-attestation+jwt`, `x5c` to the anchor.
/// - `dc+sd-jwt`: its issuer-signed JWT (before the first `~`), `typ` `dc+sd-jwt`, same `exp` as the `jwt`; every
///   Disclosure's digest among the payload's `_sd` (RFC 9901 §7.1), and the disclosed `wallet_name` / `wallet_link`
///   those of the `jwt` (with or without the trailing `~`: production omits it).
/// - `mso_mdoc`: base64url IssuerSigned; `x5chain` to the anchor, issuerAuth by its leaf, MSO `deviceKey` = our key,
///   validity covering now (ISO/IEC 18013-5 §9.3.1).
public struct WalletAttestations10: Sendable {
    /// The three documents by format, as received.
    public let documents: [String: String]
    /// The `jwt` form's claims and validity (what the wallet presents as its client attestation).
    public let jwt: AttestationVerifier.Verified

    static let formats = ["jwt", "dc+sd-jwt", "mso_mdoc"]

    init(
        answer: JSONObject, verifier: AttestationVerifier, key: P256.Signing.PublicKey, provider: ProviderEntity, at now: Date
    ) async throws(AttestationCheckError) {
        var documents: [String: String] = [:]
        for entry in answer["wallet_attestations"]?.arrayValue ?? [] {
            guard let format = entry["format"]?.stringValue, let document = entry["wallet_attestation"]?.stringValue else { continue }
            documents[format] = document
        }
        for format in Self.formats where documents[format] == nil { throw .format(format, "missing from wallet_attestations") }
        let thumbprint = JWK(publicKey: key).thumbprintBase64URL()
        let jwtDocument = documents["jwt"] ?? ""
        let jwt = try await verifier.verify(
            jwtDocument, type: ITWalletType.clientAttestation, boundTo: thumbprint, provider: provider, at: now)
        let issuerPart = (documents["dc+sd-jwt"] ?? "").split(separator: "~", omittingEmptySubsequences: false).first ?? ""
        let sdJWT = try await verifier.verify(issuerPart, type: ITWalletType.sdJWTAttestation, boundTo: thumbprint, provider: provider, at: now)
        guard sdJWT.expiresAt == jwt.expiresAt else { throw .format("dc+sd-jwt", "exp differs from the jwt's") }
        try Self.checkDisclosures(documents["dc+sd-jwt"] ?? "", issuerPart: issuerPart, jwtClaims: jwt.claims)
        try await Self.checkMDoc(documents["mso_mdoc"] ?? "", verifier: verifier, key: key, provider: provider, at: now)
        self.documents = documents
        self.jwt = jwt
    }

    /// The Disclosures of the verified issuer JWT `issuerPart`: each one's digest is in the payload (a Disclosure the
    /// provider did not sign is refused), and what they disclose agrees with the `jwt` form.
    private static func checkDisclosures(_ document: String, issuerPart: Substring, jwtClaims: JSONObject) throws(AttestationCheckError) {
        // RFC 9901 §4: an SD-JWT without Key Binding ends with `~`; production's form omits it. The last component of
        // such a text is then a Disclosure (base64url, no `.`), never a KB-JWT.
        let lastComponent = document.split(separator: "~", omittingEmptySubsequences: false).last ?? ""
        let text = document.hasSuffix("~") || lastComponent.contains(".") ? document : document + "~"
        guard let sdJWT = try? SDJWT(parsing: text), sdJWT.keyBindingJWT == nil, sdJWT.issuerSignedJWT.compact == issuerPart else {
            throw .format("dc+sd-jwt", "not an SD-JWT of the verified issuer JWT")
        }
        let claims: JSONObject
        do {
            claims = try sdJWT.unverifiedClaims()
        } catch {
            throw .format("dc+sd-jwt", "a Disclosure does not match the issuer JWT: \(error)")
        }
        for name in ["wallet_name", "wallet_link"] where claims[name] != jwtClaims[name] {
            throw .format("dc+sd-jwt", "\(name) differs from the jwt's")
        }
    }

    private static func checkMDoc(
        _ text: String, verifier: AttestationVerifier, key: P256.Signing.PublicKey, provider: ProviderEntity, at now: Date
    ) async throws(AttestationCheckError) {
        guard let bytes = Base64URL.decodeIfValid(text), let issuerSigned = try? IssuerSigned(bytes: bytes) else {
            throw .format("mso_mdoc", "not base64url CBOR IssuerSigned")
        }
        guard let chain = issuerSigned.issuerAuth.unprotected.x5chain ?? issuerSigned.issuerAuth.protected.headers.x5chain,
            let leafDER = chain.first
        else { throw .format("mso_mdoc", "issuerAuth has no x5chain") }
        let outcome = await validateX5CChain(chain, anchors: TrustAnchors(verifier.anchors), at: now)
        guard outcome.isValid, let leaf = outcome.leaf, (try? Certificate(derEncoded: Array(leafDER))) == leaf,
            let leafKey = P256.Signing.PublicKey(leaf.publicKey)
        else { throw .format("mso_mdoc", "x5chain does not lead to a trusted anchor") }
        try AttestationVerifier.published(leaf, by: provider)
        guard (try? issuerSigned.issuerAuth.verify(with: .p256(leafKey))) != nil else { throw .format("mso_mdoc", "issuerAuth does not verify") }
        guard let mso = try? issuerSigned.mobileSecurityObject().value else { throw .format("mso_mdoc", "no MSO") }
        guard let deviceKey = try? P256.Signing.PublicKey(coseKey: mso.deviceKeyInfo.deviceKey),
            deviceKey.x963Representation == key.x963Representation
        else { throw .notBoundToOurKey("mso_mdoc") }
        guard now >= mso.validityInfo.validFrom.date, now <= mso.validityInfo.validUntil.date else { throw .expired }
    }
}
