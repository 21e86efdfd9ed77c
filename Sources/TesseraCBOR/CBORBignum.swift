import Foundation

/// An arbitrary-size integer carried as a bignum (RFC 8949 §3.4.3, tags 2 and 3), or a
/// plain CBOR integer widened to the same form.
public struct CBORBignum: Hashable, Sendable {
    /// True for tag 3 (value = −1 − magnitude).
    public let isNegative: Bool
    /// Big-endian magnitude with leading zero bytes removed.
    public let magnitude: [UInt8]

    public init(isNegative: Bool, magnitude: some Sequence<UInt8>) {
        self.isNegative = isNegative
        self.magnitude = Array(magnitude.drop(while: { $0 == 0 }))
    }

    /// Reads tag 2/3 bignums and major type 0/1 integers; nil for anything else.
    public init?(_ item: CBOR) {
        switch item {
        case .unsigned(let n): self.init(isNegative: false, magnitude: withUnsafeBytes(of: n.bigEndian) { Array($0) })
        case .negative(let n): self.init(isNegative: true, magnitude: withUnsafeBytes(of: n.bigEndian) { Array($0) })
        case .tagged(CBORTag.positiveBignum, .bytes(let b)): self.init(isNegative: false, magnitude: b)
        case .tagged(CBORTag.negativeBignum, .bytes(let b)): self.init(isNegative: true, magnitude: b)
        default: return nil
        }
    }

    /// The preferred serialization (§3.4.3): a plain integer when it fits 64 bits, else a bignum.
    public var cbor: CBOR {
        if magnitude.count <= 8 {
            let n = magnitude.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return isNegative ? .negative(n) : .unsigned(n)
        }
        return .tagged(isNegative ? CBORTag.negativeBignum : CBORTag.positiveBignum, .bytes(Data(magnitude)))
    }

    /// The exact decimal value, e.g. "-18446744073709551617".
    public var decimalString: String {
        // For a negative bignum the value is -(magnitude + 1).
        var digits = isNegative ? Self.addOne(magnitude) : magnitude
        var out: [UInt8] = []
        while !digits.isEmpty {
            var remainder: UInt16 = 0
            var quotient: [UInt8] = []
            quotient.reserveCapacity(digits.count)
            for byte in digits {
                let cur = remainder << 8 | UInt16(byte)
                let q = UInt8(cur / 10)
                remainder = cur % 10
                if !(quotient.isEmpty && q == 0) { quotient.append(q) }
            }
            out.append(UInt8(remainder) + 0x30)
            digits = quotient
        }
        if out.isEmpty { out = [0x30] }
        return (isNegative ? "-" : "") + String(decoding: out.reversed(), as: UTF8.self)
    }

    private static func addOne(_ bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        for i in result.indices.reversed() {
            if result[i] == 0xff {
                result[i] = 0
            } else {
                result[i] += 1
                return result
            }
        }
        return [1] + result
    }
}
