import Foundation
import TesseraCBOR
import TesseraJOSE
import Testing

@testable import OpenID4VP

/// OpenID4VP 1.0 B.2.6.1 / B.2.6.2 SessionTranscripts, byte for byte (fixtures/session-transcript.json).
@Suite struct HandoverTests {
    struct Case: Sendable, CustomStringConvertible {
        let json: JSONValue
        var description: String { json["name"]?.stringValue ?? "?" }
    }

    static func cases() throws -> [Case] {
        try Fixtures.json("session-transcript.json").at("cases").arrayValue?.map(Case.init) ?? []
    }

    @Test(arguments: try cases())
    func transcript(_ testCase: Case) throws {
        let input = try testCase.json.at("input")
        let expected = try testCase.json.at("expected")
        let thumbprint = try input.at("jwk_thumbprint_hex").stringValue.map { try Data(hex: $0) }
        if let jwk = input["verifier_encryption_jwk"]?.objectValue {
            // The thumbprint is RFC 7638 over the verifier's encryption key.
            #expect(try JWK(json: jwk).thumbprint() == thumbprint)
        }
        let infoBytes: Data, infoHash: Data, handover: CBOR, transcript: Data
        if let clientId = input["client_id"]?.stringValue {
            let value = OpenID4VPHandover(
                clientId: clientId, nonce: try input.text("nonce"), jwkThumbprint: thumbprint,
                responseURI: try input.text("response_uri"))
            #expect(value.infoBytes == (try Data(hex: expected.text("OpenID4VPHandoverInfo_hex"))))
            infoBytes = value.infoBytes
            infoHash = try Data(hex: expected.text("OpenID4VPHandoverInfoHash_hex"))
            #expect(value.infoHash == infoHash)
            handover = value.cbor
            #expect(handover.encoded() == (try Data(hex: expected.text("OpenID4VPHandover_hex"))))
            transcript = value.sessionTranscript.bytes
        } else {
            let value = OpenID4VPDCAPIHandover(origin: try input.text("origin"), nonce: try input.text("nonce"), jwkThumbprint: thumbprint)
            #expect(value.infoBytes == (try Data(hex: expected.text("OpenID4VPDCAPIHandoverInfo_hex"))))
            infoBytes = value.infoBytes
            infoHash = try Data(hex: expected.text("OpenID4VPDCAPIHandoverInfoHash_hex"))
            #expect(value.infoHash == infoHash)
            handover = value.cbor
            #expect(handover.encoded() == (try Data(hex: expected.text("OpenID4VPDCAPIHandover_hex"))))
            transcript = value.sessionTranscript.bytes
        }
        #expect(!infoBytes.isEmpty)
        #expect(transcript == (try Data(hex: expected.text("SessionTranscript_hex"))))
    }
}
