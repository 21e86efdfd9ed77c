import Foundation
import TesseraJOSE
import X509

extension StatusListToken {
    /// TSL §8.3 step 3 with a key the caller trusts (configured, or resolved from `kid` or issuer metadata): the
    /// signature over the header and payload as received.
    public func verifySignature(with key: JWSVerificationKey) throws(StatusListError) {
        do {
            try jwt.verify(with: key)
        } catch {
            throw .signatureInvalid("\(error)")
        }
    }

    /// TSL §8.3 step 3 with the `x5c` header (TSL §11.3): the chain must validate (RFC 5280, at `instant`) against
    /// `trustAnchors`, then the signature must verify with the leaf's key. Returns the leaf certificate. With a
    /// `cache`, a chain that validated before is not validated again.
    public func verifySignature(
        trustAnchors: [Certificate], at instant: Date, cache: X5CChainCache? = nil
    ) async throws(StatusListError) -> Certificate {
        do {
            return try await jwt.verifyX5C(anchors: trustAnchors, at: instant, cache: cache)
        } catch {
            switch error {
            case .x5cChainInvalid(let failures): throw .certificateChainInvalid(failures)
            case .invalidX5C(let reason): throw .certificateChainInvalid([reason])
            default: throw .signatureInvalid("\(error)")
            }
        }
    }
}
