import Foundation
import ServiceSupport
import TesseraJOSE

/// The Wallet Attestation Request (IT-Wallet v0.9 token endpoint, RFC 7523 JWT bearer grant): a `war+jwt`
/// signed with the ephemeral key in `cnf.jwk`, carrying the challenge, the hardware key tag and the two proofs.
struct WalletAttestationRequest: Sendable {
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let type = "war+jwt"
    static let maxLifetime: TimeInterval = 600
    static let clockSkew: TimeInterval = 60

    let jws: CompactJWS
    let ephemeralKey: JWK
    let iss: String
    let aud: String
    let challenge: String
    let hardwareSignature: String
    let integrityAssertion: String
    let hardwareKeyTag: String
    let iat: Date
    let exp: Date

    /// The header and the claims' shapes (RFC 6749 §5.2 `invalid_request` when anything is missing or mistyped).
    init(assertion: String) throws(WireError) {
        let malformed = { (what: String) in WireError(.badRequest, "invalid_request", what) }
        guard let jws = try? CompactJWS(parsing: assertion) else { throw malformed("assertion is not a compact JWS") }
        guard jws.type == Self.type else { throw malformed("the assertion's typ must be war+jwt") }
        guard jws.algorithm.rawValue == "ES256" else { throw malformed("the assertion must be signed with ES256") }
        guard let claims = try? jws.payloadJSON() else { throw malformed("the assertion's payload is not a JSON object") }
        guard let jwkObject = claims["cnf"]?["jwk"]?.objectValue, let jwk = try? JWK(json: jwkObject), !jwk.isPrivate else {
            throw malformed("cnf.jwk is missing or not a public JWK")
        }
        func string(_ name: String) throws(WireError) -> String {
            guard let value = claims[name]?.stringValue, !value.isEmpty else { throw malformed("\(name) is missing") }
            return value
        }
        func time(_ name: String) throws(WireError) -> Date {
            guard let value = claims[name]?.int64Value else { throw malformed("\(name) is missing") }
            return Date(timeIntervalSince1970: TimeInterval(value))
        }
        guard jws.keyID == jwk.thumbprintBase64URL() else { throw malformed("kid must be the thumbprint of cnf.jwk") }
        self.jws = jws
        ephemeralKey = jwk
        iss = try string("iss")
        aud = try string("aud")
        _ = try string("sub")
        challenge = try string("challenge")
        hardwareSignature = try string("hardware_signature")
        integrityAssertion = try string("integrity_assertion")
        hardwareKeyTag = try string("hardware_key_tag")
        iat = try time("iat")
        exp = try time("exp")
    }

    /// `client_data` as the wallet built it before signing (IT-Wallet: the challenge and the thumbprint of the
    /// ephemeral key), rebuilt here byte for byte: `{"challenge":…,"jwk_thumbprint":…}`, compact, in that order.
    var clientData: Data {
        let object: JSONObject = [
            "challenge": .string(challenge), "jwk_thumbprint": .string(ephemeralKey.thumbprintBase64URL()),
        ]
        return object.serialized()
    }

    /// The signature by `cnf.jwk` (proof of possession of the ephemeral key).
    func verifySignature() throws(WireError) {
        do {
            try jws.verify(with: JWSVerificationKey(jwk: ephemeralKey))
        } catch {
            throw WireError(.badRequest, "invalid_grant", "the assertion's signature does not verify with cnf.jwk")
        }
    }

    /// `aud` names this provider, the request is current and short-lived.
    func checkTimes(now: Date, audience: String) throws(WireError) {
        guard aud == audience else { throw WireError(.badRequest, "invalid_grant", "aud is not this Wallet Provider") }
        guard exp > now, iat <= now.addingTimeInterval(Self.clockSkew),
            exp.timeIntervalSince(iat) <= Self.maxLifetime
        else { throw WireError(.badRequest, "invalid_grant", "the assertion is expired, not yet valid or too long-lived") }
    }
}
