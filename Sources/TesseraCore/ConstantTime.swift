import Foundation

/// Comparison of secrets and MACs whose time does not depend on where the inputs differ (only on their lengths).
public enum ConstantTime {
    public static func equal(_ lhs: some DataProtocol, _ rhs: some DataProtocol) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(lhs, rhs) { difference |= a ^ b }
        return difference == 0
    }
}
