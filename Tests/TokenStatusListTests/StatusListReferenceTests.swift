import Foundation
import TesseraCBOR
import TesseraCOSE
import TesseraJOSE
import Testing
import TokenStatusList

@Suite("Referenced Token: the status claim (TSL §6)")
struct StatusListReferenceTests {
    /// TSL §6.3's CWT Referenced Token (examples/referenced_token_cwt.md), signed by the draft's key "12".
    static let cwtExample =
        "d28443a10126a1044231325866a502653132333435017368747470733a2f2f6578616d706c652e636f6d061a648c5bea041a8898dfea19ffffa16b7374617475735f6c697374a2636964780063757269782168747470733a2f2f6578616d706c652e636f6d2f7374617475736c697374732f315840340f7efea10f1a36dc4797636a17b4dd4848b68997d1d10e8cceb3a38ff33b3dda72964a83989f6cf98560c2fc97a08bc8977cc6b0f84cfedab93d3e4481e938"

    @Test("JSON (§6.2): read and written as {\"status_list\": {\"idx\", \"uri\"}}, other mechanisms ignored")
    func json() throws {
        let claim: JSONValue = ["status_list": ["idx": 0, "uri": "https://example.com/statuslists/1"], "other": ["x": 1]]
        let reference = try StatusListReference(claim: claim)
        #expect(reference == StatusListReference(index: 0, uri: "https://example.com/statuslists/1"))
        #expect(reference.claim == ["status_list": ["idx": 0, "uri": "https://example.com/statuslists/1"]])
        #expect(try StatusListReference(claim: reference.claim) == reference)
    }

    static let badJSON: [(JSONValue, StatusListError)] = [
        (["other": 1], .malformedReference("no status_list object")),
        (["status_list": ["uri": "https://x.example/1"]], .malformedReference("idx missing or not a non-negative integer")),
        (["status_list": ["idx": -1, "uri": "https://x.example/1"]], .malformedReference("idx missing or not a non-negative integer")),
        (["status_list": ["idx": 1.5, "uri": "https://x.example/1"]], .malformedReference("idx missing or not a non-negative integer")),
        (["status_list": ["idx": 4_294_967_296, "uri": "https://x.example/1"]], .malformedReference("idx missing or not a non-negative integer")),
        (["status_list": ["idx": 1]], .malformedReference("uri missing or not a string")),
    ]

    @Test("malformed JSON status claims", arguments: badJSON)
    func badJSONClaim(_ claim: JSONValue, _ error: StatusListError) {
        #expect(statusListError { _ = try StatusListReference(claim: claim) } == error)
    }

    @Test("CBOR (§6.3): the draft's CWT Referenced Token carries claim 65535; read, written, verified")
    func cwtExample() throws {
        let message = try COSESign1(bytes: Data(hex: Self.cwtExample), tag: .required)
        try message.verify(with: .p256(DraftKey.p256))
        let claims = try CBOR.decode(message.payload ?? Data())
        let status = try #require(claims[.unsigned(StatusListReference.cwtClaimKey)])
        let reference = try StatusListReference(cbor: status)
        #expect(reference == StatusListReference(index: 0, uri: "https://example.com/statuslists/1"))
        #expect(reference.cbor == status)
        #expect(reference.cbor.encoded(options: .preserving) == status.encoded(options: .preserving))
    }

    static let badCBOR: [(CBOR, StatusListError)] = [
        (["other": 1], .malformedReference("no status_list map")),
        (["status_list": ["uri": "https://x.example/1"]], .malformedReference("idx missing or not an unsigned integer")),
        (["status_list": ["idx": -1, "uri": "https://x.example/1"]], .malformedReference("idx missing or not an unsigned integer")),
        (["status_list": ["idx": 1]], .malformedReference("uri missing or not a text string")),
        (["status_list": ["idx": 1, "uri": .bytes(Data("https://x.example/1".utf8))]], .malformedReference("uri missing or not a text string")),
    ]

    @Test("malformed CBOR Status maps", arguments: badCBOR)
    func badCBORStatus(_ status: CBOR, _ error: StatusListError) {
        #expect(statusListError { _ = try StatusListReference(cbor: status) } == error)
    }
}
