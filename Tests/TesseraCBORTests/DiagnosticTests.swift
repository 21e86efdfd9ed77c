import Foundation
import Testing
import TesseraCBOR

@Suite struct DiagnosticTests {
    @Test func abridgedCutsLongItemsAndExpandsEmbeddedCBOR() {
        let inner: CBOR = ["a": 1]
        let value: CBOR = [.bytes(Data(repeating: 0xab, count: 20)), .tagged(24, .bytes(inner.encoded())), [1, 2, 3]]
        var options = CBORDiagnosticOptions.abridged
        options.indent = nil
        options.maxElements = 2
        let ab16 = String(repeating: "ab", count: 16)
        #expect(value.diagnostic(options) == "[h'\(ab16)…' (20 bytes), 24(<< {\"a\": 1} >>), … 1 more]")
        // The full form hides nothing.
        #expect(value.diagnostic().hasSuffix("24(h'a1616101'), [1, 2, 3]]"))
    }

    @Test func byteStringHoldingATag24ItemIsExpanded() {
        let payload = CBOR.tagged(24, .bytes(CBOR.array([1]).encoded())).encoded()
        var options = CBORDiagnosticOptions.abridged
        options.indent = nil
        #expect(CBOR.bytes(payload).diagnostic(options) == "<< 24(<< [1] >>) >>")
        // Other byte strings, even ones that happen to be CBOR, stay bytes.
        #expect(CBOR.bytes(Data([0x01])).diagnostic(options) == "h'01'")
    }

    @Test func embeddedItemThatIsNotCBORStaysAByteString() {
        let value = CBOR.tagged(24, .bytes(Data([0xff])))
        #expect(value.diagnostic(.abridged) == "24(h'ff')")
    }

    @Test func controlCharactersAreEscaped() {
        #expect(CBOR.text("a\"b\\c\n\u{01}").diagnostic() == "\"a\\\"b\\\\c\\n\\u0001\"")
    }
}

@Suite struct TDateTests {
    @Test func parsesRFC3339Forms() throws {
        #expect(try TDate(string: "2013-03-21T20:04:00Z").date.timeIntervalSince1970 == 1_363_896_240)
        #expect(try TDate(string: "2013-03-21t20:04:00z").date.timeIntervalSince1970 == 1_363_896_240)
        #expect(try TDate(string: "2013-03-21T22:04:00+02:00").date.timeIntervalSince1970 == 1_363_896_240)
        #expect(try TDate(string: "2013-03-21T20:04:00.5Z").date.timeIntervalSince1970 == 1_363_896_240.5)
        #expect(try TDate(string: "1969-12-31T23:59:59Z").date.timeIntervalSince1970 == -1)
        #expect(try TDate(string: "2024-02-29T00:00:00Z").date.timeIntervalSince1970 == 1_709_164_800)
        for bad in ["2023-02-29T00:00:00Z", "2013-03-21 20:04:00Z", "2013-03-21T20:04:00", "2013-13-01T00:00:00Z",
            "2013-03-21T24:00:00Z", "2013-03-21T20:04:00.Z", "2013-03-21T20:04:00+0200", "２０１３-03-21T20:04:00Z"]
        {
            #expect(throws: CBORError.self) { try TDate(string: bad) }
        }
    }

    @Test func formatsUTCWholeSeconds() {
        #expect(TDate(Date(timeIntervalSince1970: 1_363_896_240.9)).text == "2013-03-21T20:04:00Z")
        #expect(TDate(Date(timeIntervalSince1970: -1)).text == "1969-12-31T23:59:59Z")
        #expect(TDate(Date(timeIntervalSince1970: 951_782_400)).text == "2000-02-29T00:00:00Z")
    }
}
