import Foundation

/// The source of "now" (ARCHITECTURE.md decision 5). Everything that checks validity takes a
/// clock or an instant, never `Date()`, so tests pin the instant (Annex D validates at
/// 2021-01-01T00:00:00Z).
public protocol TesseraClock: Sendable {
    func now() -> Date
}

/// The system's wall clock.
public struct SystemClock: TesseraClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock stopped at one instant.
public struct FixedClock: TesseraClock {
    public let instant: Date
    public init(_ instant: Date) { self.instant = instant }
    public func now() -> Date { instant }
}

/// Passes an injected `any TesseraClock` to APIs generic over `some TesseraClock`.
public struct AnyTesseraClock: TesseraClock {
    public let base: any TesseraClock
    public init(_ base: any TesseraClock) { self.base = base }
    public func now() -> Date { base.now() }
}
