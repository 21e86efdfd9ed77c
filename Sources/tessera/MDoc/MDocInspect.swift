import ArgumentParser
import Foundation
import MDoc
import TesseraCBOR

struct MDocInspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show an mdoc structure as annotated diagnostic notation (tag 24 contents expanded).")

    @Argument(help: "A CBOR file: DeviceResponse, IssuerSigned, DeviceRequest, DeviceEngagement, SessionEstablishment …")
    var file: String

    @Flag(help: "Do not cut long byte strings, texts and arrays.")
    var full = false

    func run() throws {
        let bytes = try MDocFiles.read(file)
        let item: CBOR
        do {
            item = try CBOR.decode(bytes)
        } catch {
            throw UserFacingError("malformed CBOR: \(error)")
        }
        print("# \(Self.describe(bytes, item)), \(bytes.count) bytes")
        var options = CBORDiagnosticOptions.abridged
        if full {
            options.maxBytes = nil
            options.maxText = nil
            options.maxElements = nil
        }
        print(item.diagnostic(options))
    }

    /// Which ISO 18013-5 structure the item is, judged by its keys, with a one-line summary.
    static func describe(_ bytes: Data, _ item: CBOR) -> String {
        guard case .map(let map) = item else { return "CBOR \(item.kindName)" }
        if map["documents"] != nil || map["documentErrors"] != nil, let r = try? DeviceResponse(bytes: bytes) {
            let docs = (r.documents ?? []).map(\.docType).joined(separator: ", ")
            return "DeviceResponse (version \(r.version), status \(r.status), documents: \(docs.isEmpty ? "none" : docs))"
        }
        if map["docRequests"] != nil, let r = try? DeviceRequest(bytes: bytes) {
            return "DeviceRequest (version \(r.version), \(r.docRequests.map(\.itemsRequest.value.docType).joined(separator: ", ")))"
        }
        if map["issuerAuth"] != nil, let s = try? IssuerSigned(bytes: bytes), let mso = try? s.mobileSecurityObject().value {
            return "IssuerSigned (\(mso.docType), valid \(mso.validityInfo.validFrom) – \(mso.validityInfo.validUntil), \(mso.digestAlgorithm))"
        }
        if map["eReaderKey"] != nil { return "SessionEstablishment" }
        if map["data"] != nil || map["status"] != nil { return "SessionData" }
        if map[0] != nil, map[1] != nil, let e = try? DeviceEngagement(bytes: bytes) {
            return "DeviceEngagement (version \(e.version), \(e.deviceRetrievalMethods.count) retrieval methods)"
        }
        return "CBOR map"
    }
}
