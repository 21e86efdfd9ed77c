import Crypto
import Foundation
import TesseraJOSE

/// The provider's federation key (ES256), kept as `provider-key.pem` (mode 0600, created with that mode) in the
/// provider's directory. It signs the Entity Configuration (attestations are signed by the X.509 signing identity,
/// `ProviderSigningIdentity`) and the portal's MAC key derives from it; it is never logged.
struct ProviderKey: Sendable {
    let signingKey: JWSSigningKey
    /// The public JWK with `kid` = its RFC 7638 thumbprint.
    let publicJWK: JWK
    var kid: String { publicJWK.kid ?? "" }

    init(privateKey: P256.Signing.PrivateKey) {
        signingKey = .es256(privateKey)
        let jwk = JWK(publicKey: privateKey.publicKey)
        publicJWK = jwk.with(kid: jwk.thumbprintBase64URL())
    }

    static func loadOrCreate(in directory: URL) throws(WalletProviderError) -> ProviderKey {
        let fm = FileManager.default
        let file = directory.appendingPathComponent("provider-key.pem")
        do {
            try fm.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .configuration("cannot create the provider directory")
        }
        if let pem = try? String(contentsOf: file, encoding: .utf8) {
            guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
                throw .configuration("\(file.lastPathComponent) is not a P-256 private key")
            }
            return ProviderKey(privateKey: key)
        }
        let key = P256.Signing.PrivateKey()
        guard fm.createFile(atPath: file.path, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        else { throw .configuration("cannot write the provider key") }
        return ProviderKey(privateKey: key)
    }
}
