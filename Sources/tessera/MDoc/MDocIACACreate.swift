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
        let (iaca, ds) = try IssuerDirectory(url: URL(fileURLWithPath: out)).create(country: country, name: name, contact: contact)
        print("IACA: \(iaca.root.certificate.subject), valid until \(iaca.root.certificate.notValidAfter)")
        print("Document Signer: \(ds.certificate.subject), valid until \(ds.certificate.notValidAfter)")
        print("wrote iaca.pem, iaca.key.pem, ds.pem, ds.key.pem to \(out)")
    }
}
