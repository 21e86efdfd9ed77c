import Foundation

/// Comparison of secrets and MACs whose time does not depend on where the inputs differ (only on their lengths).
public enum ConstantTime {
    /// Inlinable so that callers in other modules get it specialised for their byte containers (unspecialised, the
    /// generic `zip` walk costs more than the hash it compares).
    @inlinable
    public static func equal(_ lhs: some DataProtocol, _ rhs: some DataProtocol) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(lhs, rhs) { difference |= a ^ b }
        return difference == 0
    }

    /// Over `Data`'s contiguous bytes: walking `Data` element by element costs more than the digest it checks
    /// (an mdoc's value digests, a BLE Ident).
    public static func equal(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in equal(left, right) } }
    }

    /// The same over raw bytes in place (no copy into a container first).
    public static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<lhs.count { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
