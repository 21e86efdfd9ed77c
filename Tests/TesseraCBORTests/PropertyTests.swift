import Foundation
import PropertyBased
import Testing
import TesseraCBOR

/// Random CBOR trees from a seed (a small SplitMix64, so a failing seed reproduces).
struct RandomCBOR {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    mutating func integer() -> UInt64 {
        // Spread over every argument width.
        switch below(5) {
        case 0: return next() % 24
        case 1: return next() % 256
        case 2: return next() % 65536
        case 3: return next() % (1 << 32)
        default: return next()
        }
    }

    mutating func item(depth: Int) -> CBOR {
        let leafOnly = depth >= 4
        switch below(leafOnly ? 10 : 13) {
        case 0: return .unsigned(integer())
        case 1: return .negative(integer())
        case 2: return .bytes(Data((0..<below(40)).map { _ in UInt8(truncatingIfNeeded: next()) }))
        case 3:
            let scalars = (0..<below(12)).compactMap { _ in Unicode.Scalar(UInt32([0x41, 0xe9, 0x6c34, 0x1F600][below(4)]) + UInt32(below(5))) }
            return .text(String(String.UnicodeScalarView(scalars)))
        case 4: return .bool(below(2) == 0)
        case 5: return [.null, .undefined, .simple(UInt8(below(20))), .simple(UInt8(32 + below(224)))][below(4)]
        case 6: return .double(Double(bitPattern: next()))
        case 7: return .double(Double(Int(below(2000)) - 1000) / 8)  // often fits half or single
        case 8: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: next())))
        case 9: return .tagged(UInt64(below(3) == 0 ? 24 : 100 + below(100000)), .bytes(Data([UInt8(below(256))])))
        case 10: return .array((0..<below(6)).map { _ in item(depth: depth + 1) })
        case 11:
            var m = CBORMap()
            for _ in 0..<below(6) {
                let k = item(depth: 4)
                if m[k] == nil { m.append(key: k, value: item(depth: depth + 1)) }
            }
            return .map(m)
        default: return .tagged(UInt64(below(1000)) + 1005, item(depth: depth + 1))
        }
    }
}

@Suite struct PropertyTests {
    static let seeds = Gen.uint64()

    @Test func randomValuesRoundTripThroughEveryEncoding() async {
        await propertyCheck(count: 400, input: Self.seeds) { seed in
            var rng = RandomCBOR(state: seed)
            let value = rng.item(depth: 0)
            for options in [CBOREncodingOptions.preserving, .deterministic, .lengthFirst] {
                let bytes = value.encodedBytes(options: options)
                let decoded = try CBOR.decode(bytes)
                // Floats may change width (and NaN payloads collapse) under shortest-float options,
                // so compare through a second encoding rather than by value.
                #expect(decoded.encodedBytes(options: options) == bytes)
                if options == .preserving {
                    #expect(Self.sameIgnoringNaN(decoded, value))
                }
            }
        }
    }

    @Test func deterministicEncodingIsIdempotentAndAcceptedByTheDeterministicDecoder() async {
        await propertyCheck(count: 400, input: Self.seeds) { seed in
            var rng = RandomCBOR(state: seed)
            let once = rng.item(depth: 0).encodedBytes(options: .deterministic)
            let decoded = try CBOR.decode(once, options: .deterministic)
            #expect(decoded.encodedBytes(options: .deterministic) == once)
        }
    }

    @Test func anyByteStringEitherDecodesOrFailsWithATypedError() async {
        await propertyCheck(count: 2000, input: Self.seeds) { seed in
            var rng = RandomCBOR(state: seed)
            let bytes = (0..<rng.below(24)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            do throws(CBORError) {
                let v = try CBOR.decode(bytes)
                let again = try CBOR.decode(v.encodedBytes(options: .preserving))
                #expect(again.encodedBytes() == v.encodedBytes())
            } catch {
                #expect(error.offset.map { $0 >= 0 && $0 <= bytes.count } ?? false)
            }
        }
    }

    /// Value equality, except that NaN equals NaN (IEEE comparison says otherwise).
    static func sameIgnoringNaN(_ a: CBOR, _ b: CBOR) -> Bool {
        switch (a, b) {
        case (.double(let x), .double(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.float(let x), .float(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(sameIgnoringNaN)
        case (.map(let x), .map(let y)):
            return x.count == y.count
                && zip(x.entries, y.entries).allSatisfy { sameIgnoringNaN($0.key, $1.key) && sameIgnoringNaN($0.value, $1.value) }
        case (.tagged(let t, let x), .tagged(let u, let y)): return t == u && sameIgnoringNaN(x, y)
        default: return a == b
        }
    }
}
