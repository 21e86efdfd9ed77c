import Foundation

/// What a Status List Token says, in either form: the JWT claims of TSL §5.1 or the CWT claims of TSL §5.2.
public struct StatusListTokenClaims: Sendable, Hashable {
    /// `sub` (CWT 2): the URI the token is served at, equal to the `uri` of every Referenced Token pointing here.
    public var subject: String
    /// `iat` (CWT 6): when the token was issued.
    public var issuedAt: Date
    /// `exp` (CWT 4), RECOMMENDED: after this the token must not be relied on (TSL §13.7).
    public var expiresAt: Date?
    /// `ttl` (CWT 65534), RECOMMENDED: how many seconds a consumer may cache the token before fetching it again; a
    /// positive integer (TSL §5.1, §13.7).
    public var timeToLive: Int?
    /// `status_list` (CWT 65533).
    public var statusList: StatusList

    /// Claims for `statusList` served at `subject`.
    public init(
        statusList: StatusList, subject: String, issuedAt: Date, expiresAt: Date? = nil, timeToLive: Int? = nil
    ) {
        self.statusList = statusList
        self.subject = subject
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.timeToLive = timeToLive
    }

    /// The relying party's checks of TSL §8.3 step 4 on a token fetched from `uri`: `sub` equals `uri` (exactly),
    /// `exp` has not passed and `iat` is not in the future, each with `skew` seconds of tolerance. The signature
    /// (step 3) is checked by the token's `verifySignature`.
    public func validate(fetchedFrom uri: String, at instant: Date, skew: TimeInterval = 0) throws(StatusListError) {
        guard subject == uri else { throw .subjectMismatch }
        if let expiresAt, instant.timeIntervalSince(expiresAt) > skew { throw .expired }
        if issuedAt.timeIntervalSince(instant) > skew { throw .issuedInFuture }
    }

    /// The NumericDates and `ttl` an issuer writes (whole seconds), after checking what TSL §5 and §13.7 ask: a
    /// non-empty `sub`, `exp` after `iat`, a positive `ttl`.
    func issuingValues() throws(StatusListError) -> (iat: Int64, exp: Int64?, ttl: Int64?) {
        guard !subject.isEmpty else { throw .invalidClaim(name: "sub", reason: "is empty") }
        let iat = try NumericDate.seconds(issuedAt, claim: "iat")
        var exp: Int64?
        if let expiresAt {
            let seconds = try NumericDate.seconds(expiresAt, claim: "exp")
            guard seconds > iat else { throw .invalidClaim(name: "exp", reason: "is not after iat") }
            exp = seconds
        }
        if let timeToLive, timeToLive <= 0 { throw .invalidClaim(name: "ttl", reason: "is not a positive integer") }
        return (iat, exp, timeToLive.map(Int64.init))
    }
}

/// RFC 7519 §2 NumericDate: seconds since the epoch.
enum NumericDate {
    /// `date` in whole seconds (rounded down), or a typed error for a date no integer holds.
    static func seconds(_ date: Date, claim: String) throws(StatusListError) -> Int64 {
        let value = date.timeIntervalSince1970.rounded(.down)
        guard let seconds = Int64(exactly: value) else { throw .invalidClaim(name: claim, reason: "is not a finite date") }
        return seconds
    }

    /// The date of a received NumericDate, which must be finite.
    static func date(_ seconds: Double, claim: String) throws(StatusListError) -> Date {
        guard seconds.isFinite else { throw .invalidClaim(name: claim, reason: "is not a NumericDate") }
        return Date(timeIntervalSince1970: seconds)
    }
}
