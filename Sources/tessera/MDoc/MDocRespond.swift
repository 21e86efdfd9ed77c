import ArgumentParser
import Foundation
import MDoc
import TesseraCBOR

struct MDocRespond: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "respond",
        abstract: "Build a DeviceResponse (DeviceSignature) from a stored IssuerSigned.",
        discussion: """
            REQUEST is an ItemsRequest as JSON: {"docType": "…", "nameSpaces": {namespace: {element: intentToRetain}}} \
            (an array of element names also works, and docType defaults to the credential's). --all returns every \
            element the credential holds. Without --transcript the response is bound to the default transcript \
            [null, null, "tessera-cli-default"], which 'tessera mdoc verify' also uses by default.
            """)

    @Option(name: .customLong("issuer-signed"), help: "The stored credential (IssuerSigned CBOR from 'mdoc issue').")
    var issuerSigned: String

    @Option(name: .customLong("device-key"), help: "The device private key (PEM, P-256).")
    var deviceKey: String

    @Option(help: "ItemsRequest JSON file.")
    var request: String?

    @Flag(help: "Return every element of the credential.")
    var all = false

    @Option(help: "SessionTranscript CBOR file (tagged or not).")
    var transcript: String?

    @Option(help: "Output file for the DeviceResponse (CBOR).")
    var out: String

    func validate() throws {
        guard (request == nil) != !all else { throw ValidationError("give exactly one of --request and --all") }
    }

    func run() async throws {
        let stored: IssuerSigned
        let docType: String
        do {
            stored = try IssuerSigned(bytes: try MDocFiles.read(issuerSigned))
            docType = try stored.mobileSecurityObject().value.docType
        } catch let error as MDocError {
            throw UserFacingError("\(issuerSigned): \(error)")
        }
        let key = SoftwareDeviceKey(try MDocFiles.devicePrivateKey(deviceKey))
        let items = try itemsRequest(stored: stored, docType: docType)
        let credential = StoredCredential(docType: docType, issuerSigned: stored, deviceKey: key)
        do {
            let request = DeviceRequest(docRequests: [DocRequest(itemsRequest: try EncodedCBOR(encoding: items))])
            let response = try await DeviceResponseGenerator.generate(
                request: request, credentials: [credential],
                selection: DeviceResponseGenerator.selectAll(request: request, credentials: [credential]),
                sessionTranscript: try MDocFiles.transcript(transcript))
            try MDocFiles.write(try response.encoded(), to: out)
            let count = response.documents?.first?.issuerSigned.nameSpaces?.values.reduce(0) { $0 + $1.count } ?? 0
            print("DeviceResponse for \(docType) with \(count) elements written to \(out)")
        } catch let error as MDocError {
            throw UserFacingError("\(error)")
        }
    }

    func itemsRequest(stored: IssuerSigned, docType: String) throws -> ItemsRequest {
        if all {
            var nameSpaces: [String: [String: Bool]] = [:]
            for (ns, items) in stored.nameSpaces ?? [:] {
                nameSpaces[ns] = Dictionary(items.map { ($0.value.elementIdentifier, false) }, uniquingKeysWith: { a, _ in a })
            }
            return ItemsRequest(docType: docType, nameSpaces: nameSpaces)
        }
        guard let request,
            let object = try? JSONSerialization.jsonObject(with: try MDocFiles.read(request)) as? [String: Any],
            let nameSpacesJSON = object["nameSpaces"] as? [String: Any]
        else { throw UserFacingError("--request: expected {\"nameSpaces\": {namespace: {element: bool}}}") }
        var nameSpaces: [String: [String: Bool]] = [:]
        for (ns, value) in nameSpacesJSON {
            if let map = value as? [String: Bool] {
                nameSpaces[ns] = map
            } else if let list = value as? [String] {
                nameSpaces[ns] = Dictionary(list.map { ($0, false) }, uniquingKeysWith: { a, _ in a })
            } else {
                throw UserFacingError("--request: \(ns) must map element names to booleans (or list them)")
            }
        }
        return ItemsRequest(docType: object["docType"] as? String ?? docType, nameSpaces: nameSpaces)
    }
}
