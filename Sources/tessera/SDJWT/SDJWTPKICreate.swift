import ArgumentParser
import Foundation
import TesseraJOSE
import TesseraTrust
import TesseraTrustTesting

/// `tessera sdjwt pki create`: test keys and certificates for `sdjwt issue` / `verify`.
struct SDJWTPKICreate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pki-create",
        abstract: "Create a test root CA, an SD-JWT VC issuer certificate and key, and a holder key.",
        discussion: """
            Writes root.pem (trust anchor for 'verify --trust'), issuer.pem (issuer certificate, for 'issue --cert'), \
            issuer.key.pem, holder.key.pem (PKCS#8, mode 0600) and holder.jwk (public JWK, for 'issue --holder-jwk') \
            into DIR.
            """)

    @Option(help: "Directory to write into (created if missing).")
    var out: String

    @Option(help: "Issuer name (certificate common names derive from it).")
    var name = "Tessera Test"

    func run() throws {
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            throw UserFacingError("cannot create \(out): \(error.localizedDescription)")
        }
        var random = SystemRandomNumberGenerator()
        let now = Date()
        let root: IssuedCertificate
        let issuer: IssuedCertificate
        let holder: IssuedCertificate
        do {
            let until = now.addingTimeInterval(365 * 86_400)
            root = try X5CTestPKI.issueRoot(.init(commonName: "\(name) Root CA", notBefore: now, notAfter: until), random: &random)
            issuer = try X5CTestPKI.issue(
                .init(commonName: "\(name) SD-JWT VC Issuer", notBefore: now, notAfter: until), by: root, random: &random)
            // Only its key is used: the holder key pair.
            holder = try X5CTestPKI.issueRoot(.init(commonName: "\(name) Holder", notBefore: now, notAfter: until), random: &random)
        } catch {
            throw UserFacingError("cannot create the certificates: \(error)")
        }
        let holderKey = try SDJWTFiles.signingKeyFromPEM(holder.privateKeyPEM)
        let dir = URL(fileURLWithPath: out)
        try MDocFiles.write(Data(try root.certificatePEM().utf8), to: dir.appendingPathComponent("root.pem").path)
        try MDocFiles.write(Data(try issuer.certificatePEM().utf8), to: dir.appendingPathComponent("issuer.pem").path)
        try MDocFiles.write(Data(issuer.privateKeyPEM.utf8), to: dir.appendingPathComponent("issuer.key.pem").path, secret: true)
        try MDocFiles.write(Data(holder.privateKeyPEM.utf8), to: dir.appendingPathComponent("holder.key.pem").path, secret: true)
        try MDocFiles.write(holderKey.publicJWK.jsonObject.serialized(), to: dir.appendingPathComponent("holder.jwk").path)
        print("root: \(root.certificate.subject), valid until \(root.certificate.notValidAfter)")
        print("issuer: \(issuer.certificate.subject)")
        print("holder key: \(holderKey.publicJWK.thumbprintBase64URL())")
        print("wrote root.pem, issuer.pem, issuer.key.pem, holder.key.pem, holder.jwk to \(out)")
    }
}

extension SDJWTFiles {
    static func signingKeyFromPEM(_ pem: String) throws -> JWSSigningKey {
        do {
            return try JWSSigningKey(pem: pem)
        } catch {
            throw UserFacingError("generated key is not usable for JWS: \(error)")
        }
    }
}
