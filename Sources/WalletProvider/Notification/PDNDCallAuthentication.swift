import Crypto
import Foundation
import ServiceSupport
import TesseraCore
import TesseraJOSE
import Vapor

/// A PDND e-service call as the IT-Wallet OpenAPI of the Wallet Provider's e-service describes it
/// (`OAS3-PDND-WP.yaml`, `notifyUserDeath`): the PDND voucher as Bearer token, and the ModI INTEGRITY_REST_02
/// pair — `Digest` of the body and `Agid-JWT-Signature` signing that digest (and the content type) in
/// `signed_headers`. Checked: both signatures under `PDNDTrust`, both audiences, both lifetimes, the signature
/// JWT's issuer is the voucher's client, its `jti` is new (the caller stores it), and the digest is the body's.
struct PDNDCallAuthentication: Sendable {
    /// The longest lifetime accepted: a voucher (PDND lets an e-service allow up to a day), a signature JWT.
    static let maxVoucherLifetime: TimeInterval = 86_400
    static let maxSignatureLifetime: TimeInterval = 3600
    static let clockSkew: TimeInterval = 60
    static let maxTokenLength = 16 * 1024

    /// The consumer (the PID Provider's PDND client id) and the signature JWT's single-use key and expiry.
    let client: String
    let jti: String
    let expiresAt: Date

    /// - Parameter audiences: the `aud` values naming this provider.
    init(_ request: Request, body: Data, trust: PDNDTrust?, audiences: Set<String>, now: Date) async throws(WireError) {
        let unauthorized = { (text: String) in WireError(.unauthorized, "invalid_token", text) }
        guard let trust else { throw unauthorized("this provider accepts no PDND calls (no PDND trust is configured)") }
        guard let bearer = ProviderServices.bearer(request), bearer.utf8.count <= Self.maxTokenLength,
            let voucher = try? CompactJWS(parsing: bearer)
        else { throw unauthorized("a PDND voucher (Authorization: Bearer JWT) is required") }
        guard let signatureHeader = request.headers.first(name: "Agid-JWT-Signature"), signatureHeader.utf8.count <= Self.maxTokenLength,
            let signature = try? CompactJWS(parsing: signatureHeader)
        else { throw unauthorized("an Agid-JWT-Signature header (INTEGRITY_REST_02) is required") }
        let voucherClaims = try await Self.verified(voucher, "the voucher", trust, audiences, now, Self.maxVoucherLifetime)
        let signatureClaims = try await Self.verified(signature, "Agid-JWT-Signature", trust, audiences, now, Self.maxSignatureLifetime)
        // PDND vouchers name the consumer in client_id (and sub); the signature JWT is issued by that same client.
        guard let client = voucherClaims["client_id"]?.stringValue ?? voucherClaims["sub"]?.stringValue,
            signatureClaims["iss"]?.stringValue == client
        else { throw unauthorized("the Agid-JWT-Signature is not issued by the voucher's client") }
        guard let jti = signatureClaims["jti"]?.stringValue, !jti.isEmpty, jti.utf8.count <= 256,
            let exp = signatureClaims["exp"]?.int64Value
        else { throw unauthorized("the Agid-JWT-Signature has no jti") }
        try Self.checkDigest(request, body: body, signedHeaders: signatureClaims["signed_headers"])
        self.client = client
        self.jti = jti
        expiresAt = Date(timeIntervalSince1970: TimeInterval(exp))
    }

    /// The signature under `trust`, then `aud`, `iat`/`nbf`/`exp` and the lifetime.
    private static func verified(
        _ jws: CompactJWS, _ name: String, _ trust: PDNDTrust, _ audiences: Set<String>, _ now: Date, _ maxLifetime: TimeInterval
    ) async throws(WireError) -> JSONObject {
        let unauthorized = WireError(.unauthorized, "invalid_token", "\(name) does not verify under the configured PDND trust")
        if jws.header["x5c"] != nil {
            guard !trust.roots.isEmpty, (try? await jws.verifyX5C(anchors: trust.roots, at: now)) != nil else { throw unauthorized }
        } else {
            let candidates = trust.keys.filter { jws.keyID == nil || $0.kid == nil || $0.kid == jws.keyID }
            guard candidates.contains(where: { key in (try? JWSVerificationKey(jwk: key)).map { (try? jws.verify(with: $0)) != nil } ?? false })
            else { throw unauthorized }
        }
        guard let claims = try? jws.payloadJSON() else { throw unauthorized }
        let audience: [String] = claims["aud"]?.stringValue.map { [$0] } ?? claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard audience.contains(where: { audiences.contains(WalletAttestationRequest.withoutTrailingSlash($0)) }) else {
            throw WireError(.unauthorized, "invalid_token", "\(name) is not addressed to this Wallet Provider")
        }
        guard let iat = claims["iat"]?.int64Value, let exp = claims["exp"]?.int64Value,
            TimeInterval(iat) <= now.timeIntervalSince1970 + clockSkew, TimeInterval(exp) > now.timeIntervalSince1970,
            TimeInterval(exp - iat) <= maxLifetime,
            (claims["nbf"]?.int64Value).map({ TimeInterval($0) <= now.timeIntervalSince1970 + clockSkew }) ?? true
        else { throw WireError(.unauthorized, "invalid_token", "\(name) is expired, not yet valid or too long-lived") }
        return claims
    }

    /// `Digest: SHA-256=…` is the body's, and the signature JWT signs it (`signed_headers` `{"digest": …}`) and the
    /// content type when it lists one. RFC 3230 §4.2 with RFC 5843 writes the value in base64; the IT-Wallet
    /// OpenAPI's example writes it in hex: both spellings of the one digest are accepted.
    private static func checkDigest(_ request: Request, body: Data, signedHeaders: JSONValue?) throws(WireError) {
        let bad = { (text: String) in WireError(.badRequest, "invalid_request", text) }
        guard let digest = request.headers.first(name: "Digest"), digest.hasPrefix("SHA-256=") else {
            throw bad("a Digest: SHA-256=… header is required")
        }
        let value = String(digest.dropFirst("SHA-256=".count))
        let hash = Data(SHA256.hash(data: body))
        let hex = hash.map { String(format: "%02x", $0) }.joined()
        guard value == hash.base64EncodedString() || value.lowercased() == hex else { throw bad("Digest is not the SHA-256 of the body") }
        let entries = signedHeaders?.arrayValue?.compactMap(\.objectValue) ?? []
        guard entries.contains(where: { $0["digest"]?.stringValue == digest }) else {
            throw WireError(.unauthorized, "invalid_token", "the Agid-JWT-Signature does not sign this Digest")
        }
        let contentType = request.headers.first(name: .contentType)
        for entry in entries {
            if let signed = entry["content-type"]?.stringValue, signed != contentType {
                throw WireError(.unauthorized, "invalid_token", "the Agid-JWT-Signature signs another Content-Type")
            }
        }
    }
}
