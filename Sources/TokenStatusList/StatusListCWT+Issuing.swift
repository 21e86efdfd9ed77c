import Foundation
import TesseraCBOR
import TesseraCOSE

extension StatusListCWT {
    /// The claims map is written with its keys in the order TSL §5.2's example uses, integers in their shortest form.
    static let encoding = CBOREncodingOptions(mapKeyOrder: .preserved, shortestFloats: true)

    /// Signs a CWT Status List Token (TSL §5.2) for `claims`.
    ///
    /// Protected header: `alg` (1, from the key), `typ` (16) `application/statuslist+cwt`, and `x5chain` (33, DER
    /// certificates, leaf first) when given, so that the chain is signed too; unprotected header: `kid` (4) when
    /// given (TSL §11.3). Payload: `sub` (2), `iat` (6), `exp` (4), `ttl` (65534), `status_list` (65533, `lst`
    /// compressed at the best ZLIB level), in that order. Tagged 18, without the CWT tag.
    public static func issue(
        _ claims: StatusListTokenClaims, key: COSESigningKey, keyID: Data? = nil, x5chain: [Data]? = nil
    ) throws(StatusListError) -> StatusListCWT {
        let values = try claims.issuingValues()
        var payload = CBORMap()
        payload.append(key: .int(ClaimKey.subject), value: .text(claims.subject))
        payload.append(key: .int(ClaimKey.issuedAt), value: .int(values.iat))
        if let exp = values.exp { payload.append(key: .int(ClaimKey.expiresAt), value: .int(exp)) }
        if let ttl = values.ttl { payload.append(key: .int(ClaimKey.timeToLive), value: .int(ttl)) }
        payload.append(key: .int(ClaimKey.statusList), value: try claims.statusList.cbor())
        var protected = COSEHeaders()
        protected.setAlgorithm(key.algorithm)
        var unprotected = COSEHeaders()
        let message: COSESign1
        do {
            try protected.set(.text(type), for: typeLabel)
            if let x5chain, !x5chain.isEmpty { protected.x5chain = x5chain }
            unprotected.keyID = keyID
            message = try COSESign1.sign(
                payload: CBOR.map(payload).encoded(options: encoding), with: key, protected: protected,
                unprotected: unprotected)
        } catch {
            throw .signingFailed("\(error)")
        }
        var written = claims
        written.issuedAt = Date(timeIntervalSince1970: Double(values.iat))
        written.expiresAt = values.exp.map { Date(timeIntervalSince1970: Double($0)) }
        return StatusListCWT(bytes: message.encoded(tagged: true), message: message, claims: written)
    }

    /// Signs a CWT Status List Token for `list`, served at `subject`.
    public static func issue(
        _ list: StatusList, subject: String, issuedAt: Date, expiresAt: Date? = nil, timeToLive: Int? = nil,
        key: COSESigningKey, keyID: Data? = nil, x5chain: [Data]? = nil
    ) throws(StatusListError) -> StatusListCWT {
        try issue(
            StatusListTokenClaims(
                statusList: list, subject: subject, issuedAt: issuedAt, expiresAt: expiresAt, timeToLive: timeToLive),
            key: key, keyID: keyID, x5chain: x5chain)
    }

    /// A token just signed, with the claims as written.
    private init(bytes: Data, message: COSESign1, claims: StatusListTokenClaims) {
        self.bytes = bytes
        self.message = message
        self.claims = claims
    }
}
