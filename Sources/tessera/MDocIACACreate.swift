import ArgumentParser
import Foundation
import TesseraTrust

struct IACACreate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a test IACA root and a Document Signer certificate (ISO 18013-5 Annex B).",
        discussion: "Writes iaca.pem, iaca.key.pem, ds.pem and ds.key.pem (PEM; keys PKCS#8, mode 0600) into DIR.")

    @Option(help: "Directory to write into (created if missing).")
    var out: String

    @Option(help: "ISO 3166-1 alpha-2 country code of the issuing authority.")
    var country = "US"

    @Option(help: "Issuing authority name (certificate common names derive from it).")
    var name = "Tessera Test"

    @Option(help: "Contact e-mail for the issuer alternative name.")
    var contact = "iaca@example.com"

    func run() throws {
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            throw UserFacingError("cannot create \(out): \(error.localizedDescription)")
        }
        var random = SystemRandomNumberGenerator()
        let now = Date()
        let iaca: IACAIssuer
        let ds: IssuedCertificate
        do {
            iaca = try IACAIssuer.create(
                IACARootRequest(
                    country: country.uppercased(), commonName: "\(name) IACA", issuerAlternativeName: .rfc822Name(contact)),
                now: now, random: &random)
            ds = try iaca.issueDocumentSigner(DocumentSignerRequest(commonName: "\(name) Document Signer"), now: now, random: &random)
        } catch {
            throw UserFacingError("cannot create the certificates: \(error)")
        }
        let dir = URL(fileURLWithPath: out)
        try MDocFiles.write(Data(try iaca.root.certificatePEM().utf8), to: dir.appendingPathComponent("iaca.pem").path)
        try MDocFiles.write(Data(iaca.root.privateKeyPEM.utf8), to: dir.appendingPathComponent("iaca.key.pem").path, secret: true)
        try MDocFiles.write(Data(try ds.certificatePEM().utf8), to: dir.appendingPathComponent("ds.pem").path)
        try MDocFiles.write(Data(ds.privateKeyPEM.utf8), to: dir.appendingPathComponent("ds.key.pem").path, secret: true)
        print("IACA: \(iaca.root.certificate.subject), valid until \(iaca.root.certificate.notValidAfter)")
        print("Document Signer: \(ds.certificate.subject), valid until \(ds.certificate.notValidAfter)")
        print("wrote iaca.pem, iaca.key.pem, ds.pem, ds.key.pem to \(out)")
    }
}
