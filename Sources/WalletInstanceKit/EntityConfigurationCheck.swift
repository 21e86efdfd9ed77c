import Foundation
import ITWalletProtocol
import TesseraJOSE

/// The federation check every version shares (OpenID Federation §9, IT-Wallet "Wallet Provider metadata"): the
/// Entity Configuration is an `entity-statement+jwt` signed by a key of its own top-level `jwks`, with `iss` =
/// `sub` = the entity fetched, `exp` in the future and `iat` not after now + 60 s. Every failure is
/// ``WalletInstanceError/untrustedProvider(_:)``.
enum EntityConfigurationCheck {
    /// The checked statement's claims and its federation keys.
    static func claims(of jwt: String, expectedEntityID: String, at now: Date) throws(WalletInstanceError) -> (claims: JSONObject, keys: [JWK]) {
        guard let jws = try? CompactJWS(parsing: jwt) else { throw .untrustedProvider("the entity configuration is not a JWS") }
        guard jws.type == ITWalletType.entityStatement else { throw .untrustedProvider("typ is not entity-statement+jwt") }
        guard let claims = try? jws.payloadJSON() else { throw .untrustedProvider("no claims") }
        let keys = Self.keys(claims["jwks"])
        guard let key = keys.first(where: { $0.kid != nil && $0.kid == jws.keyID }),
            let verification = try? JWSVerificationKey(jwk: key), (try? jws.verify(with: verification)) != nil
        else { throw .untrustedProvider("the entity configuration is not signed by a key of its own jwks") }
        guard let iss = claims["iss"]?.stringValue, iss == claims["sub"]?.stringValue, iss == expectedEntityID else {
            throw .untrustedProvider("iss and sub must both be \(expectedEntityID)")
        }
        guard let exp = claims["exp"]?.int64Value, Date(timeIntervalSince1970: TimeInterval(exp)) > now,
            let iat = claims["iat"]?.int64Value, Date(timeIntervalSince1970: TimeInterval(iat)) <= now.addingTimeInterval(60)
        else { throw .untrustedProvider("the entity configuration is expired or not yet valid") }
        return (claims, keys)
    }

    /// The keys of a `jwks` value (`{"keys": [...]}`); members that are not JWKs are skipped.
    static func keys(_ jwks: JSONValue?) -> [JWK] {
        (jwks?["keys"]?.arrayValue ?? []).compactMap { $0.objectValue.flatMap { try? JWK(json: $0) } }
    }
}
