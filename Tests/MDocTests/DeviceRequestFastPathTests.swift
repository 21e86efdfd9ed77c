import Foundation
import TesseraCBOR
import TesseraCOSE
import Testing

@_spi(Fuzzing) @testable import MDoc

/// The DeviceRequest read without a tree must give the tree's value, and give up (leaving the tree to read it or
/// to report the error) on everything else.
@Suite struct DeviceRequestFastPathTests {
    /// Both readings, compared down to the decoded ItemsRequest (EncodedCBOR equality compares bytes only).
    private func agree(_ bytes: Data, fast expectFast: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let tree = try? DeviceRequest.readThroughTree(bytes)
        let fast = DeviceRequest.fastRead(bytes)
        #expect((fast != nil) == expectFast, sourceLocation: sourceLocation)
        guard let fast else { return }
        guard let tree else {
            Issue.record("the fast path accepted what the tree path refuses", sourceLocation: sourceLocation)
            return
        }
        #expect(fast == tree, sourceLocation: sourceLocation)
        #expect(fast.docRequests.map { $0.itemsRequest.value } == tree.docRequests.map { $0.itemsRequest.value }, sourceLocation: sourceLocation)
    }

    private func items(_ map: CBOR) -> CBOR { .tagged(24, .bytes(map.encoded())) }

    private let itemsMap: CBOR = ["docType": "org.iso.18013.5.1.mDL", "nameSpaces": ["org.iso.18013.5.1": ["family_name": true, "age_over_21": false]]]

    @Test func annexDRequestIsReadWithoutATree() throws {
        agree(AnnexD.bytes("DeviceRequest"), fast: true)
        let request = try DeviceRequest(bytes: AnnexD.bytes("DeviceRequest"))
        #expect(request.docRequests.first?.readerAuth != nil)
    }

    @Test func plainAndNullReaderAuthRequestsAreReadWithoutATree() {
        agree(CBOR(dictionaryLiteral: ("version", "1.0"), ("docRequests", [["itemsRequest": items(itemsMap)]])).encoded(), fast: true)
        agree(CBOR(dictionaryLiteral: ("docRequests", [["readerAuth": .null, "itemsRequest": items(itemsMap)]]), ("version", "1.0")).encoded(), fast: true)
        agree(CBOR(dictionaryLiteral: ("version", "1.0"), ("docRequests", [])).encoded(), fast: true)
    }

    @Test func everythingElseGoesThroughTheTree() {
        let withInfo: CBOR = ["docType": "x", "nameSpaces": [:], "requestInfo": ["k": 1]]
        // Read by the tree: requestInfo, 1.1 fields, unknown keys.
        agree(CBOR(dictionaryLiteral: ("version", "1.0"), ("docRequests", [["itemsRequest": items(withInfo)]])).encoded(), fast: false)
        agree(CBOR(dictionaryLiteral: ("version", "1.1"), ("docRequests", [["itemsRequest": items(itemsMap)]]), ("readerAuthAll", [])).encoded(), fast: false)
        // Indefinite-length map and a non-shortest tag head: valid, read by the tree.
        var indefinite = Data([0xbf])
        indefinite.append(CBOR.text("version").encoded())
        indefinite.append(CBOR.text("1.0").encoded())
        indefinite.append(CBOR.text("docRequests").encoded())
        indefinite.append(CBOR.array([["itemsRequest": items(itemsMap)]]).encoded())
        indefinite.append(0xff)
        agree(indefinite, fast: false)
        #expect((try? DeviceRequest(bytes: indefinite)) != nil)
        let itemsBytes = itemsMap.encoded()
        var longTag = Data([0xa2])
        longTag.append(CBOR.text("version").encoded())
        longTag.append(CBOR.text("1.0").encoded())
        longTag.append(CBOR.text("docRequests").encoded())
        longTag.append(contentsOf: [0x81, 0xa1])
        longTag.append(CBOR.text("itemsRequest").encoded())
        longTag.append(contentsOf: [0xd9, 0x00, 0x18])
        longTag.append(CBOR.bytes(itemsBytes).encoded())
        agree(longTag, fast: false)
        #expect((try? DeviceRequest(bytes: longTag)) != nil)
    }

    @Test func malformedAndRepeatedInputIsLeftToTheTreeToReport() {
        let good = CBOR(dictionaryLiteral: ("version", "1.0"), ("docRequests", [["itemsRequest": items(itemsMap)]])).encoded()
        agree(good + Data([0x00]), fast: false)
        agree(good.dropLast(), fast: false)
        // A key repeated with the second value a key name: {"version": "1.0", "version": "docRequests"} then an array.
        var repeated = Data([0xa2])
        for text in ["version", "1.0", "version", "docRequests"] { repeated.append(CBOR.text(text).encoded()) }
        repeated.append(CBOR.array([["itemsRequest": items(itemsMap)]]).encoded())
        agree(repeated, fast: false)
        // A repeated element identifier, a wrong IntentToRetain type, invalid UTF-8 in a name.
        var elements = Data([0xa2])
        elements.append(CBOR.text("docType").encoded())
        elements.append(CBOR.text("d").encoded())
        elements.append(CBOR.text("nameSpaces").encoded())
        elements.append(contentsOf: [0xa1, 0x61, 0x6e, 0xa2, 0x61, 0x65, 0xf5, 0x61, 0x65, 0xf4])
        let repeatedElement = CBOR(dictionaryLiteral: ("version", "1.0"), ("docRequests", [["itemsRequest": .tagged(24, .bytes(elements))]])).encoded()
        agree(repeatedElement, fast: false)
        let notBool: CBOR = ["docType": "d", "nameSpaces": ["n": ["e": 1]]]
        agree(CBOR(dictionaryLiteral: ("version", "1.0"), ("docRequests", [["itemsRequest": items(notBool)]])).encoded(), fast: false)
        var badUTF8 = elements
        badUTF8.replaceSubrange(badUTF8.count - 4..<badUTF8.count - 3, with: [0xff])
        agree(CBOR(dictionaryLiteral: ("version", "1.0"), ("docRequests", [["itemsRequest": .tagged(24, .bytes(badUTF8))]])).encoded(), fast: false)
        // A readerAuth that is no COSE_Sign1.
        agree(CBOR(dictionaryLiteral: ("version", "1.0"), ("docRequests", [["itemsRequest": items(itemsMap), "readerAuth": [1, 2]]])).encoded(), fast: false)
    }
}

/// The same for SessionEstablishment.
@Suite struct SessionEstablishmentFastPathTests {
    private func agree(_ bytes: Data, fast expectFast: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let tree = try? SessionEstablishment.readThroughTree(bytes)
        let fast = SessionEstablishment.fastRead(bytes)
        #expect((fast != nil) == expectFast, sourceLocation: sourceLocation)
        guard let fast else { return }
        guard let tree else {
            Issue.record("the fast path accepted what the tree path refuses", sourceLocation: sourceLocation)
            return
        }
        #expect(fast == tree && fast.eReaderKey.value == tree.eReaderKey.value, sourceLocation: sourceLocation)
    }

    @Test func usualLayoutIsReadWithoutATreeAndTheRestThroughIt() {
        let annexD = AnnexD.bytes("SessionEstablishment")
        agree(annexD, fast: true)
        let key: CBOR = [1: 2, -1: 1, -2: .bytes(Data(count: 32)), -3: .bytes(Data(count: 32))]
        let tagged = CBOR.tagged(24, .bytes(key.encoded()))
        agree(CBOR(dictionaryLiteral: ("data", .bytes(Data([1, 2, 3]))), ("eReaderKey", tagged)).encoded(), fast: true)
        // Unknown key, missing field, repeated key, trailing byte, an embedded item that is not one CBOR item.
        agree(CBOR(dictionaryLiteral: ("eReaderKey", tagged), ("data", .bytes(Data())), ("x", 1)).encoded(), fast: false)
        agree(CBOR(dictionaryLiteral: ("eReaderKey", tagged)).encoded(), fast: false)
        var repeated = Data([0xa2])
        repeated.append(CBOR.text("data").encoded())
        repeated.append(CBOR.bytes(Data()).encoded())
        repeated.append(CBOR.text("data").encoded())
        repeated.append(CBOR.bytes(Data()).encoded())
        agree(repeated, fast: false)
        agree(annexD + Data([0]), fast: false)
        let broken = CBOR.tagged(24, .bytes(Data([0xa1, 0x01])))
        agree(CBOR(dictionaryLiteral: ("eReaderKey", broken), ("data", .bytes(Data()))).encoded(), fast: false)
    }
}
