import ArgumentParser
import Crypto
import Foundation
import MDoc
import TesseraCOSE
import TesseraCBOR
import TesseraCore

struct MDocIssue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Issue an mdoc (IssuerSigned) for a device key.",
        discussion: """
            CLAIMS is a JSON object {namespace: {element: value}}. Strings shaped YYYY-MM-DD become full-date; \
            byte-string elements of org.iso.18013.5.1 (portrait) are base64. Elements of the mDL namespace are \
            checked against their ISO 18013-5 §7.2.1 types. The output is the IssuerSigned structure (CBOR) \
            the holder stores.
            """)

    @Option(name: .customLong("ds-cert"), help: "Document Signer certificate (PEM; more certificates may follow, leaf first).")
    var dsCert: String

    @Option(name: .customLong("ds-key"), help: "Document Signer private key (PEM).")
    var dsKey: String

    @Option(help: "Claims JSON file.")
    var claims: String

    @Option(name: .customLong("device-key"), help: "The holder's device public key (PEM, P-256; a private key also works).")
    var deviceKey: String

    @Option(help: "Document type.")
    var doctype = MDL.docType

    @Option(name: .customLong("valid-from"), help: "Start of validity (ISO 8601; default now).")
    var validFrom: String?

    @Option(name: .customLong("valid-until"), help: "End of validity (ISO 8601; default 90 days after valid-from).")
    var validUntil: String?

    @Option(help: "Output file for IssuerSigned (CBOR).")
    var out: String

    func run() throws {
        let chain = try MDocFiles.certificates(dsCert)
        guard !chain.isEmpty else { throw UserFacingError("\(dsCert): no certificate") }
        let signingKey = try MDocFiles.devicePrivateKey(dsKey)
        let claims = try CBORJSON.claims(try MDocFiles.read(self.claims))
        let device = try MDocFiles.devicePublicKey(deviceKey)
        let from = try validFrom.map { try MDocFiles.instant($0, option: "--valid-from") } ?? Date()
        let until = try validUntil.map { try MDocFiles.instant($0, option: "--valid-until") } ?? from.addingTimeInterval(90 * 86_400)
        let issuer = MDocIssuer(documentSignerKey: .p256(signingKey), certificateChain: chain)
        do {
            let issued = try issuer.issue(docType: doctype, nameSpaces: claims, deviceKey: device, validFrom: from, validUntil: until)
            try MDocFiles.write(try issued.encoded(), to: out)
            let count = issued.nameSpaces?.values.reduce(0) { $0 + $1.count } ?? 0
            print("issued \(doctype) with \(count) elements, valid \(TDate(from)) – \(TDate(until)), to \(out)")
        } catch let error as MDocError {
            throw UserFacingError("\(error)")
        }
    }
}


