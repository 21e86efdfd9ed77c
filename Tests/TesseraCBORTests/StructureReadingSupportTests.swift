import Foundation
import Testing
import TesseraCBOR

/// What structure decoders that skip Codable rely on: tag 24 heads, text-key lookup by bytes, `EncodedCBOR.decode`
/// and offsets for mapping errors.
@Suite struct StructureReadingSupportTests {
    @Test(arguments: [0, 1, 23, 24, 255, 256, 65_535, 65_536])
    func tag24PrefixIsTheHeadOfTheTaggedEncoding(count: Int) {
        let embedded = Data(repeating: 0x61, count: count)
        let whole = CBOR.tagged(CBORTag.encodedCBOR, .bytes(embedded)).encoded()
        #expect(Data(CBOR.tag24Prefix(byteCount: count)) + embedded == whole)
        #expect(CBOR.encodeTag24(embedded) == whole)
    }

    @Test(arguments: [0, 1, 20, 24, 250, 256, 65_530, 65_536])
    func tag24ArrayIsTheTaggedArrayOfItsElements(count: Int) {
        let embedded = Data(repeating: 0x61, count: count)
        let text = String(repeating: "é", count: count / 2)
        let transcript = CBOR.array([.null, .bytes(embedded)]).encoded()
        let expected = CBOR.tagged(
            CBORTag.encodedCBOR,
            .bytes(CBOR.array([.text("Auth"), .text(text), .tagged(CBORTag.encodedCBOR, .bytes(embedded)), .null]).encoded()))
        let spliced = CBOR.encodeTag24Array([.text("Auth"), .text(text), .tag24(embedded), .encoded(CBOR.null.encoded())])
        #expect(spliced == expected.encoded())
        #expect(CBOR.encodeTag24Array([.encoded(transcript)]) == CBOR.encodeTag24(CBOR.encodeArray(encodedElements: [transcript])))
        #expect(CBOR.encodeTag24Array([]) == CBOR.encodeTag24(Data([0x80])))
    }

    @Test func textKeysCompareByTheirBytes() throws {
        // U+212A KELVIN SIGN is canonically equivalent to "K" (String == says equal); CBOR text compares bytes.
        let map = try #require(try cbor("a1 63 e2 84 aa 01".filter { $0 != " " }).mapValue)
        #expect(map["\u{212A}"] == .unsigned(1))
        #expect(map["K"] == nil)
        let ascii = try #require(try cbor("a2 61 61 01 61 62 02".filter { $0 != " " }).mapValue)
        #expect(ascii["b"] == .unsigned(2))
        #expect(ascii["c"] == nil)
        #expect(ascii[1] == nil)
    }

    struct Failure: Error, Equatable {
        let error: CBORError
    }

    @Test func encodedCBORDecodeKeepsTheBytesAndReportsEachFailure() throws {
        let bytes = Data([0xa1, 0x61, 0x61, 0x01])
        let item = CBOR.tagged(CBORTag.encodedCBOR, .bytes(bytes))
        let read = try EncodedCBOR<UInt64>.decode(tagged: item, malformed: Failure.init) { (value) throws(Failure) in
            guard let n = value["a"]?.uint64Value else { throw Failure(error: .missingKey("a", path: "", offset: nil)) }
            return n
        }
        #expect(read.bytes == bytes && read.value == 1)

        let notTagged = #expect(throws: Failure.self) {
            _ = try EncodedCBOR<CBOR>.decode(tagged: .bytes(bytes), malformed: Failure.init) { (v) throws(Failure) in v }
        }
        #expect(notTagged?.error == .typeMismatch(expected: "tag 24 byte string", found: "byte string", path: "", offset: nil))
        let truncated = #expect(throws: Failure.self) {
            _ = try EncodedCBOR<CBOR>.decode(Data([0x61]), malformed: Failure.init) { (v) throws(Failure) in v }
        }
        #expect(truncated?.error == .lengthExceedsInput(declared: 1, remaining: 0, offset: 0))
    }

    @Test func mappingErrorsGetTheOffsetTheirPathNames() throws {
        // {"a": [1, {"b": 24(<<{"c": "x"}>>)}]}
        let innerItem: CBOR = ["c": "x"]
        let inner = innerItem.encoded()
        let b: CBOR = ["b": .tagged(CBORTag.encodedCBOR, .bytes(inner))]
        let outerItem: CBOR = ["a": [1, b]]
        let outer = outerItem.encoded()
        let atB = CBORError.typeMismatch(expected: "x", found: "y", path: "a[1].b", offset: nil).locatingOffset(in: outer)
        #expect(atB.offset == 8)  // the tag 24 item under "b"
        let inside = CBORError.missingKey("d", path: "a[1].b.<<>>.c", offset: nil).locatingOffset(in: outer)
        #expect(inside.offset.map { outer[$0] } == 0x61)  // the text "x"
        let unknown = CBORError.invalidValue("v", path: "zz", offset: nil).locatingOffset(in: outer)
        #expect(unknown.offset == nil)
        let kept = CBORError.duplicateMapKey(offset: 3).locatingOffset(in: outer)
        #expect(kept == .duplicateMapKey(offset: 3))
    }

    @Test func textKeyedMapsEncodeInDeterministicOrder() throws {
        // Lengths across the head sizes (0, 1, 23, 24, 255, 256), non-ASCII, written in reverse order.
        let keys = ["", "a", "b", "ab", "é", String(repeating: "z", count: 23), String(repeating: "a", count: 24),
            String(repeating: "y", count: 255), String(repeating: "x", count: 256), "\u{212A}", "K"]
        let map = CBORMap(keys.reversed().enumerated().map { CBORMap.Entry(key: .text($0.element), value: .int($0.offset)) })
        let encoded = CBOR.map(map).encoded()
        // The deterministic decoder checks the bytewise order of the encoded keys on its own.
        let decoded = try CBOR.decode(encoded, options: .deterministic)
        #expect(decoded == .map(map))
        guard case .map(let back) = decoded else { return }
        let expected = keys.sorted { a, b in
            let x = Array(a.utf8)
            let y = Array(b.utf8)
            return x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
        }
        #expect(back.entries.compactMap(\.key.textValue) == expected)
    }
}
