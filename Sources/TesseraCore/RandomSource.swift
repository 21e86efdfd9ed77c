import Foundation

/// The source of random bytes (ARCHITECTURE.md decision 5): salts, nonces, ephemeral and test
/// keys come from here, so tests can make them reproducible.
public protocol RandomSource: Sendable {
    /// `count` random bytes.
    func bytes(_ count: Int) -> Data
}

/// The operating system's cryptographically secure generator.
public struct SystemRandomSource: RandomSource {
    public init() {}

    public func bytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var out = Data(count: count)
        out.withUnsafeMutableBytes { raw in
            for i in raw.indices { raw[i] = UInt8.random(in: .min ... .max, using: &generator) }
        }
        return out
    }
}

/// A reproducible stream for tests and vectors: SHA-256-free SplitMix64 expansion of a seed.
/// Not for production secrets.
public final class SeededRandomSource: RandomSource, @unchecked Sendable {
    private var state: UInt64
    private let lock = NSLock()

    public init(seed: UInt64) { self.state = seed }

    public func bytes(_ count: Int) -> Data {
        lock.lock()
        defer { lock.unlock() }
        var out = Data(capacity: count + 8)
        while out.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            withUnsafeBytes(of: z.littleEndian) { out.append(contentsOf: $0) }
        }
        return out.prefix(count)
    }
}

extension RandomSource {
    /// A `RandomNumberGenerator` view, for APIs that take one (serial numbers, shuffles).
    public var generator: RandomSourceGenerator { RandomSourceGenerator(source: self) }
}

/// Adapts a `RandomSource` to `RandomNumberGenerator`.
public struct RandomSourceGenerator: RandomNumberGenerator {
    let source: any RandomSource
    public mutating func next() -> UInt64 {
        source.bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// Passes an injected `any RandomSource` to APIs generic over `some RandomSource`.
public struct AnyRandomSource: RandomSource {
    public let base: any RandomSource
    public init(_ base: any RandomSource) { self.base = base }
    public func bytes(_ count: Int) -> Data { base.bytes(count) }
}
