/// One row or column of up to 192 modules as bits: module p is bit p % 64 of word p / 64. Bits past the end
/// of the line stay 0, i.e. light, which is what the quiet zone around the symbol is.
struct BitLine: Equatable {
    var w0: UInt64 = 0
    var w1: UInt64 = 0
    var w2: UInt64 = 0

    /// Longest line: version 40 has 177 modules, and pattern checks look up to 10 modules past the end.
    static let capacity = 192

    init() {}

    init(_ w0: UInt64, _ w1: UInt64, _ w2: UInt64) {
        self.w0 = w0
        self.w1 = w1
        self.w2 = w2
    }

    /// Bits 0..<count set (count in 0...192).
    static func first(_ count: Int) -> BitLine {
        func word(_ bits: Int) -> UInt64 { bits <= 0 ? 0 : bits >= 64 ? ~0 : (1 << UInt64(bits)) - 1 }
        return BitLine(word(count), word(count - 64), word(count - 128))
    }

    @inline(__always)
    mutating func set(_ p: Int) {
        let bit: UInt64 = 1 << UInt64(p & 63)
        switch p >> 6 {
        case 0: w0 |= bit
        case 1: w1 |= bit
        default: w2 |= bit
        }
    }

    @inline(__always)
    mutating func toggle(_ p: Int) {
        let bit: UInt64 = 1 << UInt64(p & 63)
        switch p >> 6 {
        case 0: w0 ^= bit
        case 1: w1 ^= bit
        default: w2 ^= bit
        }
    }

    /// Bit p of the result is module p + k (k in 1...63): looks ahead along the line.
    @inline(__always)
    func ahead(_ k: UInt64) -> BitLine {
        BitLine(w0 >> k | w1 << (64 - k), w1 >> k | w2 << (64 - k), w2 >> k)
    }

    /// Bit p of the result is module p − k (k in 1...63), light before the start.
    @inline(__always)
    func behind(_ k: UInt64) -> BitLine {
        BitLine(w0 << k, w1 << k | w0 >> (64 - k), w2 << k | w1 >> (64 - k))
    }

    @inline(__always)
    var popcount: Int { w0.nonzeroBitCount &+ w1.nonzeroBitCount &+ w2.nonzeroBitCount }

    @inline(__always)
    static func & (a: BitLine, b: BitLine) -> BitLine { BitLine(a.w0 & b.w0, a.w1 & b.w1, a.w2 & b.w2) }
    @inline(__always)
    static func | (a: BitLine, b: BitLine) -> BitLine { BitLine(a.w0 | b.w0, a.w1 | b.w1, a.w2 | b.w2) }
    @inline(__always)
    static func ^ (a: BitLine, b: BitLine) -> BitLine { BitLine(a.w0 ^ b.w0, a.w1 ^ b.w1, a.w2 ^ b.w2) }
    @inline(__always)
    static prefix func ~ (a: BitLine) -> BitLine { BitLine(~a.w0, ~a.w1, ~a.w2) }
}
