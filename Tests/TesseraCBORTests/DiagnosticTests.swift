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
