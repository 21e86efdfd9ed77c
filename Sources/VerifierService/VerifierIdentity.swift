import Crypto
import Foundation
import OpenID4VP
import TesseraJOSE
import X509

/// Who the verifier is to wallets: the key that signs Request Objects and its certificate chain (leaf first,
/// without the trust anchor, HAIP §5), named by an `x509_hash` or `x509_san_dns` Client Identifier (§5.9.3).
public struct VerifierIdentity: Sendable {
    public enum Prefix: String, Sendable, CaseIterable {
        case x509Hash = "x509_hash"
        case x509SanDNS = "x509_san_dns"
    }

    public let signingKey: P256.Signing.PrivateKey
    /// DER certificates, leaf first.
    public let certificateChain: [Data]
    /// The full `client_id`, prefix included (§5.9.1).
    public let clientId: String

    public init(signingKey: P256.Signing.PrivateKey, certificateChain: [Data], prefix: Prefix = .x509Hash) throws(VerifierServiceError) {
        guard let leafDER = certificateChain.first, let leaf = try? Certificate(derEncoded: Array(leafDER)) else {
            throw .configuration("the verifier certificate chain is empty or does not parse")
        }
        guard leaf.publicKey == Certificate.PublicKey(signingKey.publicKey) else {
            throw .configuration("the verifier signing key does not match its certificate")
        }
        self.signingKey = signingKey
        self.certificateChain = certificateChain
        switch prefix {
        case .x509Hash:
            clientId = VerifierRequests.x509HashClientId(leafCertificateDER: leafDER)
        case .x509SanDNS:
            let names = (try? leaf.extensions.subjectAlternativeNames)??.compactMap { name -> String? in
                if case .dnsName(let dns) = name { return dns }
                return nil
            } ?? []
            guard let dns = names.first else { throw .configuration("x509_san_dns needs a dNSName SAN in the certificate") }
            clientId = prefix.rawValue + ":" + dns
        }
    }
}
