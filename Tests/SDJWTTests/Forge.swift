import Crypto
import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE

/// Builds SD-JWTs by hand (any payload, any Disclosures, signed by the test issuer) for the negative matrix.
enum Forge {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let clock = FixedClock(now)
    static let issuerKey = key(seed: 1)
    static let holderKey = key(seed: 2)
    static let otherKey = key(seed: 3)
    static let audience = "https://verifier.example.org"
    static let nonce = "n-0S6_WzA2Mj"

    static func key(seed: UInt64) -> JWSSigningKey {
        let random = SeededRandomSource(seed: seed)
        while true {
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: random.bytes(32)) { return .es256(key) }
        }
    }

    static func disclosure(_ name: String?, _ value: JSONValue, salt: String = "c2FsdHNhbHRzYWx0c2FsdA") -> Disclosure {
        Disclosure(salt: salt, claimName: name, claimValue: value)
    }

    static func jwt(_ payload: JSONObject, header: JSONObject = ["typ": "dc+sd-jwt"], key: JWSSigningKey = issuerKey) throws -> CompactJWS {
        try CompactJWS.sign(header: header, claims: payload, key: key)
    }

    /// `<JWT>~<D…>~`.
    static func sdJWT(
        _ payload: JSONObject, _ disclosures: [Disclosure] = [], header: JSONObject = ["typ": "dc+sd-jwt"],
        key: JWSSigningKey = issuerKey
    ) throws -> String {
        try jwt(payload, header: header, key: key).compact + "~" + disclosures.map { $0.encoded + "~" }.joined()
    }

    /// A payload with `cnf` for the holder key, `vct`, and the given members.
    static func payload(_ members: JSONObject = [:], cnf: Bool = true) -> JSONObject {
        var payload: JSONObject = ["iss": "https://issuer.example.com", "iat": 1_799_999_000, "vct": "urn:test:1"]
        if cnf { payload["cnf"] = .object(["jwk": .object(holderKey.publicJWK.jsonObject)]) }
        for (key, value) in members { payload[key] = value }
        return payload
    }

    /// A KB-JWT over `sdHashInput` with the given claims overriding the correct ones (nil removes a claim).
    static func kbJWT(
        over sdHashInput: String, overrides: [String: JSONValue?] = [:], header: JSONObject = ["typ": "kb+jwt"],
        key: JWSSigningKey = holderKey
    ) throws -> String {
        var claims: JSONObject = [
            "iat": .integer(Int64(now.timeIntervalSince1970)), "aud": .string(audience), "nonce": .string(nonce),
            "sd_hash": .string(SDHashAlgorithm.sha256.base64URLDigest(of: sdHashInput)),
        ]
        for (name, value) in overrides { claims[name] = value }
        return try CompactJWS.sign(header: header, claims: claims, key: key).compact
    }

    static func policy(
        requireKeyBinding: Bool = false, sdJWTVC: Bool = true, source: IssuerKeySource? = nil,
        statusCheck: StatusListCheck? = nil
    ) -> SDJWTVerificationPolicy {
        SDJWTVerificationPolicy(
            issuerKeySource: source ?? .key(issuerKey.verificationKey), requireKeyBinding: requireKeyBinding,
            expectedAudience: audience, expectedNonce: nonce, acceptedTypes: sdJWTVC ? ["dc+sd-jwt"] : nil,
            sdJWTVC: sdJWTVC, statusCheck: statusCheck)
    }

    static func verify(_ text: String, _ policy: SDJWTVerificationPolicy = policy()) async -> SDJWTVerificationOutcome {
        await SDJWTVerifier(policy: policy, clock: clock).verify(text)
    }
}
