import Foundation
import TesseraJOSE

extension StatusListToken {
    /// Signs a Status List Token (TSL §5.1) for `claims`.
    ///
    /// The protected header is `alg` (from the key), `typ` `statuslist+jwt`, then `kid` and `x5c` when given (TSL
    /// §11.3: the key a relying party resolves; `x5c` as DER certificates, leaf first), then the members of
    /// `header` that are none of these. The claims are `sub`, `iat`, `exp`, `ttl` (whole seconds) and `status_list`
    /// (`lst` compressed at the best ZLIB level), in that order. `exp` must be after `iat` and `ttl` positive.
    public static func issue(
        _ claims: StatusListTokenClaims, key: JWSSigningKey, keyID: String? = nil, x5c: [Data]? = nil,
        header: JSONObject = JSONObject()
    ) throws(StatusListError) -> StatusListToken {
        let values = try claims.issuingValues()
        var protected: JSONObject = ["alg": .string(key.algorithm.rawValue), "typ": .string(type)]
        if let keyID { protected["kid"] = .string(keyID) }
        if let x5c { protected["x5c"] = .array(x5c.map { .string($0.base64EncodedString()) }) }
        for (name, value) in header where !protected.contains(name) { protected[name] = value }
        var payload: JSONObject = ["sub": .string(claims.subject), "iat": .integer(values.iat)]
        if let exp = values.exp { payload["exp"] = .integer(exp) }
        if let ttl = values.ttl { payload["ttl"] = .integer(ttl) }
        payload["status_list"] = .object(try claims.statusList.jsonObject())
        let jwt: CompactJWS
        do {
            jwt = try CompactJWS.sign(header: protected, claims: payload, key: key)
        } catch {
            throw .signingFailed("\(error)")
        }
        return StatusListToken(signed: jwt, claims: claims, issuedAt: values.iat, expiresAt: values.exp)
    }

    /// Signs a Status List Token for `list`, served at `subject`.
    public static func issue(
        _ list: StatusList, subject: String, issuedAt: Date, expiresAt: Date? = nil, timeToLive: Int? = nil,
        key: JWSSigningKey, keyID: String? = nil, x5c: [Data]? = nil, header: JSONObject = JSONObject()
    ) throws(StatusListError) -> StatusListToken {
        try issue(
            StatusListTokenClaims(
                statusList: list, subject: subject, issuedAt: issuedAt, expiresAt: expiresAt, timeToLive: timeToLive),
            key: key, keyID: keyID, x5c: x5c, header: header)
    }

    /// A token just signed: its claims as written (NumericDates in whole seconds), without parsing them back.
    private init(signed jwt: CompactJWS, claims: StatusListTokenClaims, issuedAt: Int64, expiresAt: Int64?) {
        var written = claims
        written.issuedAt = Date(timeIntervalSince1970: Double(issuedAt))
        written.expiresAt = expiresAt.map { Date(timeIntervalSince1970: Double($0)) }
        self.jwt = jwt
        self.claims = written
    }
}
