import Foundation
import Testing
import TesseraCBOR

@Suite struct EncoderTests {
    /// RFC 8949 §4.2.3's example key set, in both orders.
    let keys: [CBOR] = [10, -1, false, 100, "z", "aa", [100], [-1]]

    func map(_ keys: [CBOR]) -> CBOR {
        .map(CBORMap(keys.enumerated().map { .init(key: $0.element, value: .int($0.offset)) }))
    }

    @Test func coreDeterministicSortsKeysBytewise() {
        let encoded = map(keys.reversed()).encodedBytes(options: .deterministic)
        let decoded = (try? CBOR.decode(encoded))?.mapValue?.keys ?? []
        #expect(decoded == [10, 100, -1, "z", "aa", [100], [-1], false])
    }

    @Test func lengthFirstSortsShorterKeysFirst() {
        let encoded = map(keys.reversed()).encodedBytes(options: .lengthFirst)
        let decoded = (try? CBOR.decode(encoded))?.mapValue?.keys ?? []
        #expect(decoded == [10, -1, false, 100, "z", [-1], "aa", [100]])
    }

    @Test func preservingKeepsOrderAndFloatWidths() {
        let value: CBOR = ["b": .float(1.0), "a": .double(1.5)]
        #expect(Hex.encode(value.encodedBytes(options: .preserving)) == "a26162fa3f8000006161fb3ff8000000000000")
        #expect(Hex.encode(value.encodedBytes(options: .deterministic)) == "a26161f93e006162f93c00")
    }

    @Test func integersUseShortestArguments() {
        let cases: [(CBOR, String)] = [
            (23, "17"), (24, "1818"), (255, "18ff"), (256, "190100"), (65535, "19ffff"), (65536, "1a00010000"),
            (.unsigned(UInt64(UInt32.max) + 1), "1b0000000100000000"), (-24, "37"), (-25, "3818"),
            (.int(Int64.min), "3b7fffffffffffffff"),
        ]
        for (value, hex) in cases { #expect(Hex.encode(value.encodedBytes()) == hex) }
    }

    @Test func floatsShrinkOnlyWhenExact() {
        #expect(Hex.encode(CBOR.double(0.1).encodedBytes()) == "fb3fb999999999999a")
        #expect(Hex.encode(CBOR.double(100000.0).encodedBytes()) == "fa47c35000")
        #expect(Hex.encode(CBOR.double(5.960464477539063e-8).encodedBytes()) == "f90001")
        #expect(Hex.encode(CBOR.double(.nan).encodedBytes()) == "f97e00")
        #expect(Hex.encode(CBOR.float(-.infinity).encodedBytes()) == "f9fc00")
        // A "half" that does not fit binary16 is widened, never rounded.
        #expect(Hex.encode(CBOR.half(0.1).encodedBytes(options: .preserving)) == "fa3dcccccd")
    }

    @Test func nestedMapsAreSortedAtEveryLevel() {
        let value: CBOR = ["b": ["y": 1, "x": 2], "a": [["d": 0, "c": 1]]]
        #expect(Hex.encode(value.encodedBytes()) == "a26161 81a2616301616400 6162a2617802617901".filter { $0 != " " })
    }
}

@Suite struct DataModelEqualityTests {
    @Test func equalityFollowsTheDeterministicEncoding() {
        #expect(CBOR.half(1.0) == CBOR.double(1.0))
        #expect(CBOR.float(.nan) == CBOR.double(-.nan))
        #expect(CBOR.double(0.0) != CBOR.double(-0.0))
        #expect(CBOR.unsigned(1) != CBOR.double(1.0))
        #expect(CBOR.text("\u{e9}") != CBOR.text("e\u{301}"))  // canonically equivalent, different bytes
        #expect(CBOR.tagged(2, .bytes(Data([0, 0xff]))) == CBOR.unsigned(255))
        #expect(CBOR.tagged(3, .bytes(Data([0, 1] + [UInt8](repeating: 0, count: 8)))) == CBOR.tagged(3, .bytes(Data([1] + [UInt8](repeating: 0, count: 8)))))
        #expect(Hex.encode(CBOR.tagged(2, .bytes(Data([0, 0xff]))).encodedBytes()) == "18ff")
        #expect(Hex.encode(CBOR.tagged(2, .bytes(Data([0, 0xff]))).encodedBytes(options: .preserving)) == "c24200ff")
        #expect(Set<CBOR>([.half(1.0), .double(1.0), .float(.nan), .double(.nan)]).count == 2)
        let a: CBOR = ["x": 1, "y": .half(2.0)]
        let b: CBOR = ["y": .double(2.0), "x": 1]
        #expect(a == b && a.hashValue == b.hashValue)
    }
}
