import Foundation
import Testing
import TesseraCBOR

/// A COSE-like structure with integer keys.
struct KeyLike: Codable, Equatable {
    var kty: Int
    var kid: Data?
    var crv: Int
    var x: Data
    enum CodingKeys: Int, CodingKey {
        case kty = 1
        case kid = 2
        case crv = -1
        case x = -2
    }
}

/// An mdoc-like structure with text keys, dates and nested containers.
struct Holder: Codable, Equatable {
    var name: String
    var birthDate: FullDate
    var signed: TDate
    var ages: [String: Bool]
    var digests: [Int: Data]
    var scores: [Double]
    var flag: Bool?
    var raw: CBOR
    var count: UInt8
}

@Suite struct CodableTests {
    @Test func integerCodingKeysBecomeIntegerMapKeys() throws {
        let key = KeyLike(kty: 2, kid: nil, crv: 1, x: Data([1, 2, 3]))
        let bytes = try CBOREncoder().encode(key)
        // {1: 2, -1: 1, -2: h'010203'}, keys sorted bytewise.
        #expect(Hex.encode(bytes) == "a30102200121430102 03".filter { $0 != " " })
        #expect(try CBORDecoder().decode(KeyLike.self, from: bytes) == key)
    }

    @Test func roundTripsTextKeyedStructures() throws {
        let value = try Holder(
            name: "Ada", birthDate: FullDate(string: "1990-02-28"), signed: TDate(string: "2020-10-01T13:30:02Z"),
            ages: ["18": true, "21": false], digests: [0: Data([0xaa]), 7: Data([0xbb])], scores: [1.5, -0.25],
            flag: nil, raw: [1, "two"], count: 200)
        let bytes = try CBOREncoder().encode(value)
        let back = try CBORDecoder().decode(Holder.self, from: bytes)
        #expect(back == value)
        let item = try CBOR.decode(bytes)
        // Numeric-looking text keys stay text; Int-keyed dictionaries use integer keys.
        #expect(item["ages"]?["18"] == true)
        #expect(item["digests"]?[7] == .bytes(Data([0xbb])))
        #expect(item["birthDate"] == .tagged(1004, "1990-02-28"))
        #expect(item["signed"] == .tagged(0, "2020-10-01T13:30:02Z"))
        #expect(item["flag"] == nil)  // absent optionals are left out
    }

    @Test func typeMismatchNamesPathAndOffset() throws {
        // {"name": 5, ...}: the value at offset 6 is an integer, not text.
        let bytes = try CBOREncoder().encode(["name": CBOR.int(5)])
        let e = caught { _ = try CBORDecoder().decode(Holder.self, from: bytes) }
        #expect(e == .typeMismatch(expected: "text string", found: "integer", path: "name", offset: 6))
    }

    @Test func missingKeyNamesTheMap() throws {
        let bytes = Hex.decode("a2 0102 2001".filter { $0 != " " })
        let e = caught { _ = try CBORDecoder().decode(KeyLike.self, from: bytes) }
        #expect(e == .missingKey("-2", path: "", offset: 0))
    }

    @Test func integerOutOfRangeIsInvalidValue() throws {
        let bytes = Hex.decode("82 80 8119 0100".filter { $0 != " " })
        let e = caught { _ = try CBORDecoder().decode([[UInt8]].self, from: bytes) }
        #expect(e == .invalidValue("integer out of range for UInt8", path: "[1][0]", offset: 3))
        #expect(caught { _ = try CBORDecoder().decode(UInt.self, from: Hex.decode("20")) } != nil)
        #expect(try CBORDecoder().decode(Int8.self, from: Hex.decode("387f")) == -128)
        #expect(caught { _ = try CBORDecoder().decode(Int8.self, from: Hex.decode("3880")) } != nil)
    }

    @Test func badFullDateIsReportedWhereItSits() throws {
        let bytes = try CBOREncoder().encode(["d": CBOR.tagged(1004, "2023-02-29")])
        struct D: Codable { var d: FullDate }
        let e = caught { _ = try CBORDecoder().decode(D.self, from: bytes) }
        #expect(e == .invalidValue("invalid full-date 2023-2-29", path: "d", offset: 3))
    }

    @Test func datesDecodeFromTagZeroAndOne() throws {
        let t0 = try CBORDecoder().decode(Date.self, from: Hex.decode("c074323031332d30332d32315432303a30343a30305a"))
        let t1 = try CBORDecoder().decode(Date.self, from: Hex.decode("c11a514b67b0"))
        #expect(t0 == t1)
        #expect(t0.timeIntervalSince1970 == 1_363_896_240)
        #expect(try CBOREncoder().encode(t0) == Hex.decode("c074323031332d30332d32315432303a30343a30305a"))
    }
}

@Suite struct EncodedCBORTests {
    struct Inner: Codable, Equatable {
        var a: Int
        var b: String
    }

    struct Outer: Codable {
        var item: EncodedCBOR<Inner>
        var tail: Int
    }

    @Test func keepsReceivedBytesThatAreNotDeterministic() throws {
        // Inner map {"b": "x", "a": 0x17 written as 1817}: unsorted keys, non-shortest integer.
        let inner = Hex.decode("a2 6162 6178 6161 1817".filter { $0 != " " })
        let outer: CBOR = ["item": .tagged(24, .bytes(inner)), "tail": 1]
        let decoded = try CBORDecoder().decode(Outer.self, from: outer.encoded())
        #expect(decoded.item.value == Inner(a: 23, b: "x"))
        #expect(decoded.item.bytes == inner)
        // Re-emitting the outer structure carries the inner bytes unchanged.
        let reencoded = try CBOR.decode(CBOREncoder().encode(decoded))
        #expect(reencoded["item"] == .tagged(24, .bytes(inner)))
    }

    @Test func buildsOnceAndKeepsThoseBytes() throws {
        let e = try EncodedCBOR(encoding: Inner(a: 1, b: "y"))
        #expect(Hex.encode(e.bytes) == "a2616101616261 79".filter { $0 != " " })
        #expect(e.cbor == .tagged(24, .bytes(e.bytes)))
        #expect(try EncodedCBOR<Inner>(tagged: e.cbor) == e)
    }

    @Test func errorsInsideEmbeddedItemsPointIntoTheOuterBytes() throws {
        // {"item": 24(<<{"a": "oops", "b": "x"}>>), "tail": 1}
        let inner: CBOR = ["a": "oops", "b": "x"]
        let outer: CBOR = ["item": .tagged(24, .bytes(inner.encoded())), "tail": 1]
        let bytes = outer.encoded()
        let e = caught { _ = try CBORDecoder().decode(Outer.self, from: bytes) }
        // 0: a2, 1: 64 "item", 6: d8 18, 8: 4c (bstr), 9: a2, 10: 61 "a", 12: "oops"
        #expect(e == .typeMismatch(expected: "integer", found: "text string", path: "item.<<>>.a", offset: 12))
    }

    @Test func rejectsItemsThatAreNotTag24() throws {
        let value: CBOR = ["item": .bytes(Data([0xa0])), "tail": 1]
        let bytes = value.encoded()
        let e = caught { _ = try CBORDecoder().decode(Outer.self, from: bytes) }
        #expect(e == .typeMismatch(expected: "tag 24 byte string", found: "byte string", path: "item", offset: 6))
    }
}
