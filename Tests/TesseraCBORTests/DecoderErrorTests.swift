import Foundation
import Testing
import TesseraCBOR

/// One malformed input per `CBORError` case the decoder raises, with the offset it must name.
@Suite struct DecoderErrorTests {
    @Test func truncatedInput() {
        #expect(caught { _ = try cbor("") } == .unexpectedEnd(offset: 0))
        #expect(caught { _ = try cbor("19 01".filter { $0 != " " }) } == .unexpectedEnd(offset: 0))
        #expect(caught { _ = try cbor("820118") } == .unexpectedEnd(offset: 2))
        #expect(caught { _ = try cbor("8201") } == .lengthExceedsInput(declared: 2, remaining: 1, offset: 0))
        #expect(caught { _ = try cbor("9f01") } == .unexpectedEnd(offset: 0))
    }

    @Test func reservedAdditionalInformation() {
        #expect(caught { _ = try cbor("1c") } == .reservedAdditionalInfo(28, offset: 0))
        #expect(caught { _ = try cbor("811e") } == .reservedAdditionalInfo(30, offset: 1))
        #expect(caught { _ = try cbor("fd") } == .reservedAdditionalInfo(29, offset: 0))
    }

    @Test func indefiniteLengthOnIntegersAndTags() {
        #expect(caught { _ = try cbor("1f") } == .indefiniteLengthNotAllowed(majorType: 0, offset: 0))
        #expect(caught { _ = try cbor("3f") } == .indefiniteLengthNotAllowed(majorType: 1, offset: 0))
        #expect(caught { _ = try cbor("df00") } == .indefiniteLengthNotAllowed(majorType: 6, offset: 0))
    }

    @Test func breakOutsideIndefiniteItem() {
        #expect(caught { _ = try cbor("ff") } == .unexpectedBreak(offset: 0))
        #expect(caught { _ = try cbor("8201ff") } == .unexpectedBreak(offset: 2))
        // A map may not end between a key and its value.
        #expect(caught { _ = try cbor("bf01ff") } == .unexpectedBreak(offset: 2))
    }

    @Test func wrongChunkInIndefiniteString() {
        #expect(caught { _ = try cbor("5f41016101ff") } == .invalidChunk(offset: 3))
        #expect(caught { _ = try cbor("7f7f6161ffff") } == .invalidChunk(offset: 1))
    }

    @Test func simpleValueBelow32InTwoByteForm() {
        #expect(caught { _ = try cbor("f81f") } == .invalidSimpleValue(31, offset: 0))
    }

    @Test func forgedLengthsDoNotAllocate() {
        // A 9-byte header declaring 2^64-1 bytes, elements or entries fails before any allocation.
        #expect(caught { _ = try cbor("5bffffffffffffffff") }
            == .lengthExceedsInput(declared: .max, remaining: 0, offset: 0))
        #expect(caught { _ = try cbor("9bffffffffffffffff00") }
            == .lengthExceedsInput(declared: .max, remaining: 1, offset: 0))
        #expect(caught { _ = try cbor("bb000000010000000000") }
            == .lengthExceedsInput(declared: 1 << 32, remaining: 1, offset: 0))
        // Two entries need at least four bytes.
        #expect(caught { _ = try cbor("a2010203") } == .lengthExceedsInput(declared: 2, remaining: 3, offset: 0))
        #expect(caught { _ = try cbor("6461") } == .lengthExceedsInput(declared: 4, remaining: 1, offset: 0))
    }

    @Test func trailingBytes() {
        #expect(caught { _ = try cbor("0000") } == .trailingBytes(offset: 1))
    }

    @Test func duplicateMapKeys() {
        #expect(caught { _ = try cbor("a2010201 03".filter { $0 != " " }) } == .duplicateMapKey(offset: 3))
        // Same key in a large map (hashed path).
        var hex = "b8 14".filter { $0 != " " }
        for i in 0..<19 { hex += String(format: "%02x00", i) }
        hex += "0500"
        #expect(caught { _ = try cbor(hex) } == .duplicateMapKey(offset: 40))
        // An indefinite-length map grows its table; a duplicate after growth is still found.
        var indefinite = "bf"
        for i in 0..<300 { indefinite += "19" + String(format: "%04x", i) + "f6" }
        #expect(caught { _ = try cbor(indefinite + "ff") } == nil)
        let offset = 1 + 300 * 4
        #expect(caught { _ = try cbor(indefinite + "19012bf6ff") } == .duplicateMapKey(offset: offset))
        // Same value, different (non-shortest) encoding: still a duplicate.
        #expect(caught { _ = try cbor("a2 0500 1805 00".filter { $0 != " " }) } == .duplicateMapKey(offset: 3))
        // Text keys compare by UTF-8 bytes: precomposed and decomposed "é" are different keys.
        #expect(caught { _ = try cbor("a2 62c3a9 00 6365cc81 00".filter { $0 != " " }) } == nil)
        #expect(caught { _ = try cbor("a2 62c3a9 00 62c3a9 00".filter { $0 != " " }) } == .duplicateMapKey(offset: 5))
        // Floats are keys by value (found by the fuzzer: a deterministic re-encoding made them collide).
        #expect(caught { _ = try cbor("a2f93c0000fa3f80000000") } == .duplicateMapKey(offset: 5))  // 1.0 half, 1.0 single
        #expect(caught { _ = try cbor("a2f97e0000f97e0100") } == .duplicateMapKey(offset: 5))  // two NaN payloads
        #expect(caught { _ = try cbor("a2f97e0000fa7fc0000100") } == .duplicateMapKey(offset: 5))
        #expect(caught { _ = try cbor("a2fb000000000000000000f9800000") } == nil)  // 0.0 and -0.0 differ
        // 1 and 1.0 are different keys in the data model.
        #expect(caught { _ = try cbor("a20100f93c0000") } == nil)
    }

    @Test func invalidUTF8() {
        #expect(caught { _ = try cbor("62c328") } == .invalidUTF8(offset: 0))
        #expect(caught { _ = try cbor("8163eda080") } == .invalidUTF8(offset: 1))  // surrogate
        #expect(caught { _ = try cbor("7f61c361a9ff") } == .invalidUTF8(offset: 1))  // split across chunks
    }

    @Test func wrongTagContent() {
        #expect(caught { _ = try cbor("c201") } == .invalidTagContent(tag: 2, offset: 0))
        #expect(caught { _ = try cbor("c001") } == .invalidTagContent(tag: 0, offset: 0))
        #expect(caught { _ = try cbor("d8180a") } == .invalidTagContent(tag: 24, offset: 0))
        #expect(caught { _ = try cbor("c16161") } == .invalidTagContent(tag: 1, offset: 0))
    }

    @Test func depthLimit() {
        let deep = String(repeating: "81", count: 64) + "00"
        #expect(caught { _ = try cbor(deep) } == nil)
        let tooDeep = String(repeating: "81", count: 65) + "00"
        #expect(caught { _ = try cbor(tooDeep) } == .depthLimitExceeded(limit: 64, offset: 64))
        let tags = String(repeating: "c6", count: 70) + "00"
        #expect(caught { _ = try cbor(tags) } == .depthLimitExceeded(limit: 64, offset: 64))
    }

    @Test func itemLimit() {
        let options = CBORDecodingOptions(maxItems: 3)
        #expect(caught { _ = try cbor("83010203", options) } == .itemLimitExceeded(limit: 3, offset: 3))
        #expect(caught { _ = try cbor("820102", options) } == nil)
    }

    @Test func deterministicModeRejectsNonShortestForms() {
        #expect(caught { _ = try cbor("1817", .deterministic) } == .nonShortestForm(offset: 0))
        #expect(caught { _ = try cbor("190017", .deterministic) } == .nonShortestForm(offset: 0))
        #expect(caught { _ = try cbor("8119ffff", .deterministic) } == nil)
        #expect(caught { _ = try cbor("811a0000ffff", .deterministic) } == .nonShortestForm(offset: 1))
        #expect(caught { _ = try cbor("1b00000000ffffffff", .deterministic) } == .nonShortestForm(offset: 0))
        #expect(caught { _ = try cbor("fa3f800000", .deterministic) } == .nonShortestForm(offset: 0))  // 1.0
        #expect(caught { _ = try cbor("fb3ff0000000000000", .deterministic) } == .nonShortestForm(offset: 0))
        #expect(caught { _ = try cbor("f97e01", .deterministic) } == .nonShortestForm(offset: 0))  // NaN payload
        #expect(caught { _ = try cbor("1817") } == nil)  // the strict default accepts it
        // Bignums in preferred serialization only (§3.4.3): no leading zeros, not when 64 bits hold them.
        for hex in ["c240", "c24100", "c2420001", "c2480000000000000001", "c349000100000000000000"] {
            #expect(caught { _ = try cbor(hex, .deterministic) } == .nonShortestForm(offset: 0))
            #expect(caught { _ = try cbor(hex) } == nil)
        }
        #expect(caught { _ = try cbor("c249010000000000000000", .deterministic) } == nil)
        // A bignum and the integer of the same value are the same map key.
        #expect(caught { _ = try cbor("a2 00f6 c240f6".filter { $0 != " " }) } == .duplicateMapKey(offset: 3))
    }

    @Test func deterministicModeRejectsIndefiniteLengths() {
        #expect(caught { _ = try cbor("9fff", .deterministic) } == .indefiniteLengthInDeterministicMode(offset: 0))
        #expect(caught { _ = try cbor("5fff", .deterministic) } == .indefiniteLengthInDeterministicMode(offset: 0))
    }

    @Test func deterministicModeRejectsUnsortedKeys() {
        #expect(caught { _ = try cbor("a2020001 00".filter { $0 != " " }, .deterministic) } == .unsortedMapKeys(offset: 3))
        // Bytewise, not length-first: 10 (0a) < 100 (1864) < -1 (20).
        #expect(caught { _ = try cbor("a30a0018640020 00".filter { $0 != " " }, .deterministic) } == nil)
        #expect(caught { _ = try cbor("a2010001 00".filter { $0 != " " }, .deterministic) } == .unsortedMapKeys(offset: 3))
    }

    @Test func decodesFromASliceWithoutLeavingIt() throws {
        // The item sits in the middle of a larger buffer; offsets count from the slice start.
        let buffer = Hex.decode("ffff" + "83010203" + "ffff")
        let slice = buffer[2..<6]
        #expect(try CBOR.decode(slice) == [1, 2, 3])
        #expect(caught { _ = try CBOR.decode(buffer[2..<5]) } == .lengthExceedsInput(declared: 3, remaining: 2, offset: 0))
        #expect(caught { _ = try CBOR.decode(buffer[2..<7]) } == .trailingBytes(offset: 4))
        let bytes = Array(buffer)
        #expect(try CBOR.decode(bytes[2..<6]) == [1, 2, 3])
        let prefix = try CBOR.decodePrefix(buffer[2...])
        #expect(prefix.value == [1, 2, 3] && prefix.length == 4)
    }

    @Test func errorsNameTheirOffsetInText() {
        let e = caught { _ = try cbor("8201ff") }
        #expect(e?.description == "break byte outside an indefinite-length item at byte offset 2")
        #expect(e?.offset == 2)
    }
}
