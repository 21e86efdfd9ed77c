import Foundation

/// A Status List Token in one of its two representations, JWT (`StatusListToken`, TSL §5.1) or CWT
/// (`StatusListCWT`, TSL §5.2): what both say, and the relying party's claim checks of TSL §8.3 step 4.
public protocol StatusListTokenRepresentation: Sendable {
    /// The claims read from the token (or written into it).
    var claims: StatusListTokenClaims { get }
}

extension StatusListTokenRepresentation {
    /// `sub` (CWT 2).
    public var subject: String { claims.subject }
    /// `iat` (CWT 6).
    public var issuedAt: Date { claims.issuedAt }
    /// `exp` (CWT 4), if present.
    public var expiresAt: Date? { claims.expiresAt }
    /// `ttl` (CWT 65534) in seconds, if present.
    public var timeToLive: Int? { claims.timeToLive }
    /// `status_list` (CWT 65533).
    public var statusList: StatusList { claims.statusList }

    /// TSL §8.3 step 4 (see `StatusListTokenClaims.validate`).
    public func validate(fetchedFrom uri: String, at instant: Date, skew: TimeInterval = 0) throws(StatusListError) {
        try claims.validate(fetchedFrom: uri, at: instant, skew: skew)
    }
}
