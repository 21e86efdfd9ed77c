import Crypto
import Foundation
import TesseraJOSE
import X509

/// The key and X.509 chain the provider signs its attestations and status lists with (IT-Wallet 1.3+: the
/// Wallet Instance Attestation, Key Attestation and Token Status List carry `x5c`, and 1.5 takes the provider's
/// identity from that certificate alone). The chain ends below a trust anchor relying parties configure; its key is
/// published, with its `x5c`, in the Entity Configuration's provider metadata.
public struct ProviderSigningIdentity: Sendable {
    /// The ES256 key the leaf certificate certifies.
    public let privateKey: P256.Signing.PrivateKey
    /// DER certificates, leaf first (the trust anchor itself need not be included).
    public let certificateChain: [Data]
    /// The public JWK with `kid` = its RFC 7638 thumbprint and `x5c` = the chain.
    public let publicJWK: JWK

    /// Checks that the chain parses and its leaf certifies `privateKey`.
    public init(privateKey: P256.Signing.PrivateKey, certificateChain: [Data]) throws(WalletProviderError) {
        guard let leafDER = certificateChain.first, let leaf = try? Certificate(derEncoded: Array(leafDER)) else {
            throw .configuration("the signing certificate chain is empty or does not parse")
        }
        guard certificateChain.dropFirst().allSatisfy({ (try? Certificate(derEncoded: Array($0))) != nil }) else {
            throw .configuration("a certificate of the signing chain does not parse")
        }
        guard leaf.publicKey == Certificate.PublicKey(privateKey.publicKey) else {
            throw .configuration("the signing key does not match its certificate")
        }
        self.privateKey = privateKey
        self.certificateChain = certificateChain
        let jwk = JWK(publicKey: privateKey.publicKey)
        var object = jwk.with(kid: jwk.thumbprintBase64URL()).jsonObject
        object["x5c"] = .array(certificateChain.map { .string($0.base64EncodedString()) })
        guard let published = try? JWK(json: object) else { throw .configuration("the signing key cannot be published as a JWK") }
        publicJWK = published
    }

    /// The `kid` of everything this identity signs.
    public var kid: String { publicJWK.kid ?? "" }

    /// The JOSE `x5c` header value: standard base64 DER, leaf first (RFC 7515 §4.1.6).
    public var x5c: [String] { certificateChain.map { $0.base64EncodedString() } }

    /// The JWS signing key.
    var signingKey: JWSSigningKey { .es256(privateKey) }
}
