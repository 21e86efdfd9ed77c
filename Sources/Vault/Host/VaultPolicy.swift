import Foundation

/// What every vault on a host shares: lifetimes and limits (design in the module README).
public struct VaultPolicy: Sendable {
    /// A session is refused after this; the app rotates it after 24 h or 1000 messages, whichever comes first.
    public var sessionLifetime: TimeInterval = 25 * 3600
    /// How long the old session still works after `session.rotate` (messages already on their way).
    public var rotationGrace: TimeInterval = 60
    /// The vault's own sequence numbers are reserved in blocks of this size (one write per block).
    public var sendReservation: UInt64 = 1000
    /// How long the answer to a state-changing command is kept for a retry with the same event id.
    public var handledRetention: TimeInterval = 24 * 3600
    /// The longest app NATS credentials the vault issues (`requested_ttl_hours` is clamped to 1…this).
    public var maxCredentialTTLHours = 168

    public init() {}
}
