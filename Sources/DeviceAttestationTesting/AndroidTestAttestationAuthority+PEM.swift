import Crypto
import DeviceAttestation
import Foundation
import X509

extension AndroidTestAttestationAuthority {
    /// The authority as four PEM documents, e.g. for a CLI to keep in a directory. The keys are PKCS #8
    /// (`PRIVATE KEY`) and secret.
    public struct PEMFiles: Sendable, Hashable {
        public var rootCertificate: String
        public var rootKey: String
        public var intermediateCertificate: String
        public var intermediateKey: String

        public init(rootCertificate: String, rootKey: String, intermediateCertificate: String, intermediateKey: String) {
            self.rootCertificate = rootCertificate
            self.rootKey = rootKey
            self.intermediateCertificate = intermediateCertificate
            self.intermediateKey = intermediateKey
        }

        /// File names used by `write(toDirectory:)` and `init(directory:)`.
        static let names = (
            rootCertificate: "root-certificate.pem", rootKey: "root-key.pem",
            intermediateCertificate: "intermediate-certificate.pem", intermediateKey: "intermediate-key.pem"
        )
    }

    public func pemFiles() throws(DeviceAttestationError) -> PEMFiles {
        do {
            return PEMFiles(
                rootCertificate: try rootCertificate.serializeAsPEM().pemString, rootKey: rootKey.pemRepresentation,
                intermediateCertificate: try intermediateCertificate.serializeAsPEM().pemString,
                intermediateKey: intermediateKey.pemRepresentation)
        } catch {
            throw .issuanceFailed("PEM encoding: \(error)")
        }
    }

    /// Reads an authority back, checking that each key belongs to its certificate and that the root issued the
    /// intermediate.
    public init(pem: PEMFiles) throws(DeviceAttestationError) {
        let rootCertificate: Certificate
        let intermediateCertificate: Certificate
        let rootKey: P256.Signing.PrivateKey
        let intermediateKey: P256.Signing.PrivateKey
        do {
            rootCertificate = try Certificate(pemEncoded: pem.rootCertificate)
            intermediateCertificate = try Certificate(pemEncoded: pem.intermediateCertificate)
        } catch {
            throw .invalidPEM("a certificate does not parse")
        }
        do {
            rootKey = try P256.Signing.PrivateKey(pemRepresentation: pem.rootKey)
            intermediateKey = try P256.Signing.PrivateKey(pemRepresentation: pem.intermediateKey)
        } catch {
            throw .invalidPEM("a private key is not a P-256 key")  // never echo key material
        }
        guard rootCertificate.publicKey == Certificate.PublicKey(rootKey.publicKey) else {
            throw .keyMismatch("the root key does not belong to the root certificate")
        }
        guard intermediateCertificate.publicKey == Certificate.PublicKey(intermediateKey.publicKey) else {
            throw .keyMismatch("the intermediate key does not belong to the intermediate certificate")
        }
        guard intermediateCertificate.issuer == rootCertificate.subject,
            rootCertificate.publicKey.isValidSignature(intermediateCertificate.signature, for: intermediateCertificate)
        else { throw .keyMismatch("the root did not issue the intermediate certificate") }
        self.init(
            rootKey: rootKey, rootCertificate: rootCertificate,
            intermediateKey: intermediateKey, intermediateCertificate: intermediateCertificate)
    }

    /// Writes the four PEM files into `directory` (created if needed); the key files are readable by the owner only.
    public func write(toDirectory directory: URL) throws(DeviceAttestationError) {
        let files = try pemFiles()
        let names = PEMFiles.names
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .fileAccess("cannot create \(directory.path)")
        }
        for (name, text, secret) in [
            (names.rootCertificate, files.rootCertificate, false), (names.rootKey, files.rootKey, true),
            (names.intermediateCertificate, files.intermediateCertificate, false),
            (names.intermediateKey, files.intermediateKey, true),
        ] {
            let path = directory.appendingPathComponent(name).path
            let attributes: [FileAttributeKey: Any] = [.posixPermissions: secret ? 0o600 : 0o644]
            // Replace atomically-enough for a test tool: remove, then create with the permissions already set.
            try? manager.removeItem(atPath: path)
            guard manager.createFile(atPath: path, contents: Data(text.utf8), attributes: attributes) else {
                throw .fileAccess("cannot write \(path)")
            }
        }
    }

    /// Reads the files `write(toDirectory:)` wrote.
    public init(directory: URL) throws(DeviceAttestationError) {
        func read(_ name: String) throws(DeviceAttestationError) -> String {
            let url = directory.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8)
            else { throw .fileAccess("cannot read \(url.path)") }
            return text
        }
        let names = PEMFiles.names
        try self.init(
            pem: PEMFiles(
                rootCertificate: try read(names.rootCertificate), rootKey: try read(names.rootKey),
                intermediateCertificate: try read(names.intermediateCertificate),
                intermediateKey: try read(names.intermediateKey)))
    }
}
