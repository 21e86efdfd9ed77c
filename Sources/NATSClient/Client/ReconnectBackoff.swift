import TesseraCore

/// Delay before a reconnect attempt: exponential in the number of consecutive failures, capped, with jitter from
/// an injected `RandomSource` so that many clients dropped together do not return together.
struct ReconnectBackoff: Sendable {
    var base: Duration
    var maximum: Duration
    var jitter: Double
    var random: any RandomSource

    /// The delay after `failures` consecutive failed attempts (0: the first try after a drop, kept short).
    func delay(afterFailures failures: Int) -> Duration {
        let exponent = min(max(failures - 1, 0), 16)
        var nominal = failures == 0 ? base / 2 : base * (1 << exponent)
        if nominal > maximum { nominal = maximum }
        let unit = Double(random.bytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) / Double(UInt32.max)
        let factor = 1 + jitter * (2 * unit - 1)
        return nominal * max(factor, 0)
    }
}
