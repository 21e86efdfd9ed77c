import Foundation

/// When the wallet asks for a new Wallet (Instance) Attestation: once less than `share` of the kept one's life
/// (`exp - iat`) or less than `minimum` is left, whichever is larger — by default 10 % or 5 minutes, so a one-hour
/// WIA (the production lifetime) is renewed at 54 minutes and a 24-hour one at 21 h 36 min. The clock is the
/// client's injected one.
public struct RefreshPolicy: Sendable, Equatable {
    /// The share of the life left at which the wallet renews.
    public var share: Double
    /// The least time left at which the wallet renews.
    public var minimum: TimeInterval

    /// A policy renewing at `share` of the life left or `minimum` seconds before `exp`, whichever comes first.
    public init(share: Double = 0.1, minimum: TimeInterval = 300) {
        self.share = share
        self.minimum = minimum
    }

    /// The instant from which an attestation issued at `issuedAt` and expiring at `expiresAt` is renewed.
    public func renewalInstant(issuedAt: Date, expiresAt: Date) -> Date {
        let life = max(0, expiresAt.timeIntervalSince(issuedAt))
        return expiresAt.addingTimeInterval(-max(life * share, minimum))
    }

    /// Whether an attestation with this validity is due for renewal at `now`.
    public func isDue(issuedAt: Date?, expiresAt: Date?, at now: Date) -> Bool {
        guard let expiresAt else { return true }
        return now >= renewalInstant(issuedAt: issuedAt ?? expiresAt, expiresAt: expiresAt)
    }
}
