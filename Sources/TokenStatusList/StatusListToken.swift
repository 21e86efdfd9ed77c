import Foundation
import TesseraJOSE

/// A Status List Token in JWT form (TSL §5.1): a compact JWS with `typ` `statuslist+jwt` whose claims are `sub` (the
/// URI it is served at), `iat`, optional `exp` and `ttl`, and the JSON `status_list`. The compact text is kept as
/// received; the signature is checked by `verifySignature`.
public struct StatusListToken: StatusListTokenRepresentation {
    /// The JWS `typ` (TSL §5.1): the media type `application/statuslist+jwt` without `application/`.
    public static let type = "statuslist+jwt"

    /// The JWS as received (or as signed).
    public let jwt: CompactJWS
    /// The claims read from it.
    public let claims: StatusListTokenClaims

    /// Parses a compact Status List Token and its claims within `limits`; the signature is not checked here.
    public init(parsing compact: some StringProtocol, limits: StatusListLimits = .default) throws(StatusListError) {
        guard compact.utf8.count <= limits.maxTokenBytes else {
            throw .tokenTooLarge(length: compact.utf8.count, limit: limits.maxTokenBytes)
        }
        let jwt: CompactJWS
        do {
            jwt = try CompactJWS(parsing: compact, limits: limits.jose)
        } catch {
            throw .malformedToken("not a compact JWS (\(error))")
        }
        try self.init(jwt: jwt, limits: limits)
    }

    /// Reads the claims of a parsed JWS: `typ` must be `statuslist+jwt` (or, RFC 7515 §4.1.9, the same media type
    /// with `application/`, in any case); `sub`, `iat` and `status_list` are required; `exp` must be a NumericDate
    /// and `ttl` a positive integer when present; other claims (`iss` …) are allowed and ignored.
    public init(jwt: CompactJWS, limits: StatusListLimits = .default) throws(StatusListError) {
        guard let type = jwt.type, Self.isStatusListType(type) else { throw .wrongType(jwt.type) }
        let claims: JSONObject
        do {
            claims = try jwt.payloadJSON()
        } catch {
            throw .malformedToken("payload is not a JSON object")
        }
        guard let subjectValue = claims["sub"] else { throw .missingClaim("sub") }
        guard let subject = subjectValue.stringValue else { throw .invalidClaim(name: "sub", reason: "is not a string") }
        guard let iat = claims["iat"] else { throw .missingClaim("iat") }
        let issuedAt = try Self.numericDate(iat, claim: "iat")
        let expiresAt = try claims["exp"].map { (value) throws(StatusListError) in try Self.numericDate(value, claim: "exp") }
        let timeToLive = try claims["ttl"].map { (value) throws(StatusListError) in try Self.timeToLive(value) }
        guard let listValue = claims["status_list"] else { throw .missingClaim("status_list") }
        guard let list = listValue.objectValue else { throw .invalidClaim(name: "status_list", reason: "is not an object") }
        self.jwt = jwt
        self.claims = StatusListTokenClaims(
            statusList: try StatusList(json: list, limits: limits), subject: subject, issuedAt: issuedAt,
            expiresAt: expiresAt, timeToLive: timeToLive)
    }

    /// `statuslist+jwt`, or `application/statuslist+jwt`, compared without regard to case (media types are
    /// case-insensitive, RFC 7515 §4.1.9).
    static func isStatusListType(_ type: String) -> Bool {
        let lowered = type.lowercased()
        return lowered == Self.type || lowered == StatusListMediaType.jwt
    }

    private static func numericDate(_ value: JSONValue, claim: String) throws(StatusListError) -> Date {
        guard let seconds = value.doubleValue else { throw .invalidClaim(name: claim, reason: "is not a NumericDate") }
        return try NumericDate.date(seconds, claim: claim)
    }

    /// `ttl`: a positive JSON number of whole seconds (`43200`, or `43200.0` as some encoders write it).
    private static func timeToLive(_ value: JSONValue) throws(StatusListError) -> Int {
        switch value {
        case .integer(let seconds) where seconds > 0:
            return Int(seconds)
        case .number(let seconds) where seconds > 0 && seconds.rounded() == seconds:
            if let whole = Int(exactly: seconds) { return whole }
        default:
            break
        }
        throw .invalidClaim(name: "ttl", reason: "is not a positive integer")
    }
}
