import Crypto
import Foundation
import TesseraCOSE
import TesseraTrust
import X509

extension StatusListCWT {
    /// Most certificates accepted in an `x5chain`.
    static let maxChainLength = 10

    /// TSL §8.3 step 3 with a key the caller trusts (configured, or resolved from `kid`): the COSE_Sign1 signature
    /// over the protected header and payload as received (RFC 9052 §4.4), `alg` protected and bound to the key.
    public func verifySignature(with key: COSEVerificationKey) throws(StatusListError) {
        do {
            try message.verify(with: key)
        } catch {
            throw .signatureInvalid("\(error)")
        }
    }

    /// TSL §8.3 step 3 with the `x5chain` header (RFC 9360; protected, or else unprotected): the chain must
    /// validate (RFC 5280, at `instant`) against `trustAnchors`, then the signature must verify with the leaf's
    /// key. Returns the leaf certificate.
    public func verifySignature(trustAnchors: [Certificate], at instant: Date) async throws(StatusListError) -> Certificate {
        guard let chain = message.protected.headers.x5chain ?? message.unprotected.x5chain, !chain.isEmpty else {
            throw .certificateChainInvalid(["no x5chain header"])
        }
        guard chain.count <= Self.maxChainLength else {
            throw .certificateChainInvalid(["\(chain.count) certificates, at most \(Self.maxChainLength) accepted"])
        }
        let outcome = await validateX5CChain(chain, anchors: TrustAnchors(trustAnchors), at: instant)
        guard outcome.isValid, let leaf = outcome.leaf else {
            throw .certificateChainInvalid(outcome.failures.map(\.description))
        }
        guard let key = Self.verificationKey(leaf) else {
            throw .signatureInvalid("the leaf certificate's key is not EC P-256/384/521 or Ed25519")
        }
        try verifySignature(with: key)
        return leaf
    }

    /// The certificate's subject public key as a COSE verification key.
    static func verificationKey(_ certificate: Certificate) -> COSEVerificationKey? {
        let key = certificate.publicKey
        if let ec = P256.Signing.PublicKey(key) { return .p256(ec) }
        if let ec = P384.Signing.PublicKey(key) { return .p384(ec) }
        if let ec = P521.Signing.PublicKey(key) { return .p521(ec) }
        if let ed = Curve25519.Signing.PublicKey(key) { return .ed25519(ed) }
        return nil
    }
}
