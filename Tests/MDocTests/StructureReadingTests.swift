import Foundation
import MDoc
import TesseraCBOR
import TesseraCOSE
import Testing

/// The structures are read straight from decoded CBOR and built as CBOR items (no Codable on the hot paths):
/// the result must be what the Codable bridge gives, and every failure must still name where it is.
@Suite struct StructureReadingTests {
    @Test func annexDStructuresReadAndEncodeAsWithCodable() throws {
        let responseBytes = AnnexD.bytes("DeviceResponse")
        let response = try DeviceResponse(bytes: responseBytes)
        #expect(response == (try CBORDecoder().decode(DeviceResponse.self, from: responseBytes)))
        #expect(try response.encoded() == (try CBOREncoder().encode(response)))

        let requestBytes = AnnexD.bytes("DeviceRequest")
        let request = try DeviceRequest(bytes: requestBytes)
        #expect(request == (try CBORDecoder().decode(DeviceRequest.self, from: requestBytes)))
        #expect(try request.encoded() == (try CBOREncoder().encode(request)))

        let issuerSigned = try #require(response.documents?.first?.issuerSigned)
        let issuerSignedBytes = try CBOREncoder().encode(issuerSigned)
        #expect(try IssuerSigned(bytes: issuerSignedBytes) == issuerSigned)
        #expect(try issuerSigned.encoded() == issuerSignedBytes)

        let mso = try issuerSigned.mobileSecurityObject()
        #expect(mso.value == (try CBORDecoder().decode(MobileSecurityObject.self, from: mso.bytes)))

        let establishmentBytes = AnnexD.bytes("SessionEstablishment")
        let establishment = try SessionEstablishment(bytes: establishmentBytes)
        #expect(establishment == (try CBORDecoder().decode(SessionEstablishment.self, from: establishmentBytes)))
        #expect(try establishment.encoded() == (try CBOREncoder().encode(establishment)))
        let sessionDataBytes = AnnexD.bytes("SessionData")
        let sessionData = try SessionData(bytes: sessionDataBytes)
        #expect(sessionData == (try CBORDecoder().decode(SessionData.self, from: sessionDataBytes)))
        #expect(try sessionData.encoded() == (try CBOREncoder().encode(sessionData)))
        #expect(try SessionData(status: .sessionTermination).encoded() == (try CBOREncoder().encode(SessionData(status: .sessionTermination))))
        #expect(try sessionData.encoded() == sessionDataBytes)
        // Written into one buffer: the deterministic tree's bytes for data and status together, and at every bstr
        // head size.
        for count in [0, 23, 24, 255, 256, 65_535, 65_536] {
            var message = SessionData(data: Data(repeating: 0xa5, count: count), status: .cborDecodingError)
            #expect(try message.encoded() == CBOR(dictionaryLiteral: ("data", .bytes(message.data ?? Data())), ("status", 11)).encoded(options: .deterministic))
            message.status = nil
            #expect(try message.encoded() == CBOR(dictionaryLiteral: ("data", .bytes(message.data ?? Data()))).encoded(options: .deterministic))
            #expect(try SessionData(bytes: message.encoded()) == message)
        }
    }

    @Test func deviceResponseWrittenInOneBufferIsItsDeterministicTree() throws {
        let annexD = try DeviceResponse(bytes: AnnexD.bytes("DeviceResponse"))
        var document = try #require(annexD.documents?.first)
        let items = try #require(document.issuerSigned.nameSpaces?.values.first)
        var variants = [annexD, DeviceResponse(documents: nil, status: .generalError)]
        // Name spaces whose keys sort by length first, then bytewise (RFC 8949 §4.2.1), one with a 2-byte head.
        document.issuerSigned.nameSpaces = [
            "org.iso.18013.5.1": items, "b": Array(items.prefix(1)), "aa": items, "a.name.space.of.thirty.letters": items,
        ]
        variants.append(DeviceResponse(documents: [document, document]))
        var withoutItems = document
        withoutItems.issuerSigned.nameSpaces = nil
        variants.append(DeviceResponse(documents: [withoutItems]))
        var withErrors = document
        withErrors.errors = ["org.iso.18013.5.1": ["portrait": 1]]
        variants.append(DeviceResponse(documents: [withErrors, document]))
        variants.append(DeviceResponse(documents: [document], documentErrors: [["org.example.other": 0]]))
        for response in variants {
            let encoded = try response.encoded()
            #expect(encoded == response.cbor.encoded(options: .deterministic))
            #expect(encoded == (try CBOREncoder().encode(response)))
            #expect(try DeviceResponse(bytes: encoded) == response)
        }
    }

    /// The Annex D DeviceResponse as a tree, edited by `edit`, then read back.
    func readEdited(_ edit: (inout CBORMap) throws -> Void) throws -> MDocError? {
        guard case .map(var root) = try CBOR.decode(AnnexD.bytes("DeviceResponse")) else { return nil }
        try edit(&root)
        let bytes = CBOR.map(root).encoded(options: .preserving)
        do {
            _ = try DeviceResponse(bytes: bytes)
            return nil
        } catch {
            return error
        }
    }

    /// The first Document of `root`, edited.
    func editDocument(_ root: inout CBORMap, _ edit: (inout CBORMap) throws -> Void) throws {
        guard case .array(var documents)? = root["documents"], case .map(var document)? = documents.first else {
            Issue.record("no document")
            return
        }
        try edit(&document)
        documents[0] = .map(document)
        root[.text("documents")] = .array(documents)
    }

    @Test func aMissingFieldIsNamedWithItsPath() throws {
        let error = try readEdited { $0[.text("status")] = nil }
        #expect(error == .malformed(structure: "DeviceResponse", .missingKey("\"status\"", path: "", offset: 0)))
    }

    @Test func aFieldOfTheWrongTypeIsNamedWithItsPathAndOffset() throws {
        let error = try readEdited { root in try editDocument(&root) { $0[.text("docType")] = 7 } }
        guard case .malformed("DeviceResponse", .typeMismatch("text string", "integer", "documents[0].docType", let offset?)) = error
        else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(offset > 0)
    }

    @Test func aBadFieldInsideAnIssuerSignedItemIsNamedThroughTheTag24Item() throws {
        let error = try readEdited { root in
            try editDocument(&root) { document in
                guard case .map(var issuerSigned)? = document["issuerSigned"], case .map(var nameSpaces)? = issuerSigned["nameSpaces"],
                    case .array(var items)? = nameSpaces[MDL.namespace], case .tagged(24, .bytes(let itemBytes))? = items.first,
                    case .map(var item) = try CBOR.decode(itemBytes)
                else { return }
                item[.text("digestID")] = "zero"
                items[0] = .tagged(24, .bytes(CBOR.map(item).encoded(options: .preserving)))
                nameSpaces[.text(MDL.namespace)] = .array(items)
                issuerSigned[.text("nameSpaces")] = .map(nameSpaces)
                document[.text("issuerSigned")] = .map(issuerSigned)
            }
        }
        let path = "documents[0].issuerSigned.nameSpaces.\(MDL.namespace)[0].<<>>.digestID"
        // No offset: the namespace has dots of its own, so the rendered path cannot be walked back (as with Codable).
        #expect(error == .malformed(structure: "DeviceResponse", .typeMismatch(expected: "integer", found: "text string", path: path, offset: nil)))
    }

    @Test func deviceAuthWithBothOrNeitherIsRejected() throws {
        for keep in [true, false] {
            let error = try readEdited { root in
                try editDocument(&root) { document in
                    guard case .map(var deviceSigned)? = document["deviceSigned"], case .map(var auth)? = deviceSigned["deviceAuth"],
                        let mac = auth["deviceMac"]
                    else { return }
                    auth[.text("deviceSignature")] = keep ? mac : nil
                    if !keep { auth[.text("deviceMac")] = nil }
                    deviceSigned[.text("deviceAuth")] = .map(auth)
                    document[.text("deviceSigned")] = .map(deviceSigned)
                }
            }
            guard case .malformed("DeviceResponse", .invalidValue(_, "documents[0].deviceSigned.deviceAuth", _)) = error else {
                Issue.record("unexpected \(String(describing: error))")
                continue
            }
        }
    }

    @Test func aBrokenCOSEObjectIsACOSEErrorAtItsPath() throws {
        let error = try readEdited { root in
            try editDocument(&root) { document in
                guard case .map(var issuerSigned)? = document["issuerSigned"] else { return }
                issuerSigned[.text("issuerAuth")] = [1, 2]
                document[.text("issuerSigned")] = .map(issuerSigned)
            }
        }
        guard case .cose("DeviceResponse documents[0].issuerSigned.issuerAuth", .notCOSESign1) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
    }

    @Test func aNullOptionalFieldIsAbsentAndAnUnknownFieldIsIgnored() throws {
        let error = try readEdited { root in
            root[.text("documentErrors")] = .null
            root[.text("somethingNew")] = "ignored"
        }
        #expect(error == nil)
    }
}
