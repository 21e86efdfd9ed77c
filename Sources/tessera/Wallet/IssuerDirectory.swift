import Crypto
import Foundation
import TesseraTrust
import TesseraTrustTesting

/// A test issuer on disk: iaca.pem, iaca.key.pem, ds.pem, ds.key.pem (keys PKCS#8, mode 0600), as
/// `tessera mdoc iaca create` writes it and `tessera wallet add-mdl` uses it.
struct IssuerDirectory {
    let url: URL

    var iacaPath: String { url.appendingPathComponent("iaca.pem").path }
    var dsPath: String { url.appendingPathComponent("ds.pem").path }
    var dsKeyPath: String { url.appendingPathComponent("ds.key.pem").path }

    var exists: Bool { FileManager.default.fileExists(atPath: dsKeyPath) && FileManager.default.fileExists(atPath: iacaPath) }

    /// Creates a new IACA root and document signer in the directory.
    @discardableResult
    func create(country: String = "US", name: String = "Tessera Test", contact: String = "iaca@example.com", now: Date = Date())
        throws -> (iaca: IACAIssuer, documentSigner: IssuedCertificate)
    {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw UserFacingError("cannot create \(url.path): \(error.localizedDescription)")
        }
        var random = SystemRandomNumberGenerator()
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
        try MDocFiles.write(Data(try iaca.root.certificatePEM().utf8), to: iacaPath)
        try MDocFiles.write(Data(iaca.root.privateKeyPEM.utf8), to: url.appendingPathComponent("iaca.key.pem").path, secret: true)
        try MDocFiles.write(Data(try ds.certificatePEM().utf8), to: dsPath)
        try MDocFiles.write(Data(ds.privateKeyPEM.utf8), to: dsKeyPath, secret: true)
        return (iaca, ds)
    }

    /// The document signer key and chain, creating the issuer first if the directory holds none.
    func documentSigner() throws -> (key: P256.Signing.PrivateKey, chain: [Data], created: Bool) {
        var created = false
        if !exists {
            try create()
            created = true
        }
        return (try MDocFiles.devicePrivateKey(dsKeyPath), try MDocFiles.certificates(dsPath), created)
    }
}

/// Where the CLI keeps its state: `$TESSERA_HOME`, else `~/.tessera`.
enum TesseraHome {
    static var url: URL {
        if let home = ProcessInfo.processInfo.environment["TESSERA_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".tessera")
    }

    static func wallet(_ option: String?) -> URL { option.map { URL(fileURLWithPath: $0) } ?? url.appendingPathComponent("wallet") }
    static func issuer(_ option: String?) -> URL { option.map { URL(fileURLWithPath: $0) } ?? url.appendingPathComponent("issuer") }
}
