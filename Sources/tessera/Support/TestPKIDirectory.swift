import Crypto
import Foundation
import TesseraTrust
import TesseraTrustTesting

/// A test root and one leaf on disk: root.pem, <leaf>.pem, <leaf>.key.pem (PKCS#8, mode 0600). The PID issuer
/// (`wallet add-pid`) and the verifier service's client identity (`verifier serve`) each keep one.
struct TestPKIDirectory {
    let url: URL
    let leafName: String

    var rootPath: String { url.appendingPathComponent("root.pem").path }
    var leafPath: String { url.appendingPathComponent("\(leafName).pem").path }
    var keyPath: String { url.appendingPathComponent("\(leafName).key.pem").path }

    /// The leaf key and chain (leaf only, DER), creating root and leaf on first use.
    func loadOrCreate(rootCommonName: String, leafCommonName: String, now: Date = Date()) throws
        -> (key: P256.Signing.PrivateKey, chain: [Data], created: Bool)
    {
        if FileManager.default.fileExists(atPath: keyPath) {
            return (try MDocFiles.devicePrivateKey(keyPath), try MDocFiles.certificates(leafPath), false)
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw UserFacingError("cannot create \(url.path)")
        }
        var generator = SystemRandomNumberGenerator()
        let (root, leaf) = try X5CTestPKI.issueChain(
            rootCommonName: rootCommonName, leafCommonName: leafCommonName, now: now, random: &generator)
        guard case .p256(let key) = leaf.privateKey else { throw UserFacingError("\(leafCommonName) key is not P-256") }
        try MDocFiles.write(Data(try root.certificatePEM().utf8), to: rootPath)
        try MDocFiles.write(Data(try leaf.certificatePEM().utf8), to: leafPath)
        try MDocFiles.write(Data(leaf.privateKeyPEM.utf8), to: keyPath, secret: true)
        return (key, [try leaf.derEncoded()], true)
    }
}
