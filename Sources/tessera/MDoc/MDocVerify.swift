import ArgumentParser
import Foundation
import MDoc
import TesseraCBOR

struct MDocVerify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a DeviceResponse against trusted IACA roots (ISO 18013-5 §9.3.1).",
        discussion: """
            Exit status 0 iff the response is valid. Every failure is listed, not only the first. With --json \
            the result is {"valid": bool, "errors": [{"code", "message"}], "documents": [{"docType", \
            "elements": {namespace: {element: value}}, "errors": [...]}]}; full-dates and tdates are strings, \
            byte strings base64.
            """)

    @Option(help: "Trusted IACA root certificates (PEM bundle).")
    var trust: String

    @Option(help: "Verification instant (ISO 8601; default now).")
    var at: String?

    @Option(help: "SessionTranscript CBOR file (default: the one 'mdoc respond' uses by default).")
    var transcript: String?

    @Option(help: "ItemsRequest JSON: also report requested elements that are missing.")
    var request: String?

    @Flag(help: "Print the result as JSON.")
    var json = false

    @Argument(help: "The DeviceResponse (CBOR).")
    var response: String

    func run() async throws {
        let anchors = try MDocFiles.trustAnchors(trust)
        let instant = try at.map { try MDocFiles.instant($0, option: "--at") } ?? Date()
        let sessionTranscript = try MDocFiles.transcript(transcript)
        let deviceRequest = try request.map { try Self.deviceRequest($0) }
        let outcome: MDocVerificationOutcome
        do {
            let parsed = try DeviceResponse(bytes: try MDocFiles.read(response))
            outcome = await MDocVerifier(trustAnchors: anchors).verify(
                parsed, request: deviceRequest, sessionTranscript: sessionTranscript, at: instant)
        } catch let error as MDocError {
            outcome = MDocVerificationOutcome(errors: [error], documents: [])
        }
        if json {
            print(try CBORJSON.serialize(Self.json(outcome)))
        } else {
            Self.printText(outcome)
        }
        if !outcome.isValid { throw ExitCode(1) }
    }

    static func deviceRequest(_ path: String) throws -> DeviceRequest {
        guard let object = try? JSONSerialization.jsonObject(with: try MDocFiles.read(path)) as? [String: Any],
            let docType = object["docType"] as? String, let ns = object["nameSpaces"] as? [String: [String: Bool]]
        else { throw UserFacingError("--request: expected {\"docType\": …, \"nameSpaces\": {namespace: {element: bool}}}") }
        do {
            let items = try EncodedCBOR(encoding: ItemsRequest(docType: docType, nameSpaces: ns))
            return DeviceRequest(docRequests: [DocRequest(itemsRequest: items)])
        } catch {
            throw UserFacingError("--request: \(error)")
        }
    }

    static func errorJSON(_ e: MDocError) -> [String: Any] { ["code": e.code, "message": e.description] }

    static func json(_ outcome: MDocVerificationOutcome) -> [String: Any] {
        [
            "valid": outcome.isValid,
            "errors": outcome.errors.map(errorJSON),
            "documents": outcome.documents.map { doc -> [String: Any] in
                var elements: [String: Any] = [:]
                for (ns, values) in doc.issuerSignedElements.merging(doc.deviceSignedElements, uniquingKeysWith: { a, b in a.merging(b) { x, _ in x } }) {
                    elements[ns] = values.mapValues(CBORJSON.json)
                }
                return ["docType": doc.docType, "elements": elements, "errors": doc.errors.map(errorJSON)]
            },
        ]
    }

    static func printText(_ outcome: MDocVerificationOutcome) {
        for doc in outcome.documents {
            print("document \(doc.docType)")
            if let signer = doc.documentSigner { print("  signed by \(signer.subject)") }
            if let v = doc.validityInfo { print("  valid \(v.validFrom) – \(v.validUntil)") }
            for (ns, values) in doc.issuerSignedElements.sorted(by: { $0.key < $1.key }) {
                for (element, value) in values.sorted(by: { $0.key < $1.key }) {
                    print("  \(ns)/\(element) = \(value.diagnostic(.init(maxBytes: 16, maxText: 64, maxElements: 8)))")
                }
            }
        }
        for error in outcome.allErrors { print("error: [\(error.code)] \(error)") }
        print(outcome.isValid ? "valid" : "INVALID (\(outcome.allErrors.count) errors)")
    }
}
