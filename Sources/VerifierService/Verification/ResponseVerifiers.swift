import MDoc
import SDJWT
import TesseraJOSE
import TesseraTrust

/// What verifying a response needs from `IssuerTrust`, built once when the service starts rather than per
/// response: `TrustAnchors` checks each IACA root's self-signature (ISO 18013-5 Annex B.1.2) once per set of
/// anchors, so a verifier rebuilt per response would pay those signature checks on every response. Likewise the
/// SD-JWT issuers' x5c chains are validated once each and remembered (`X5CChainCache`; the issuer's signature on
/// every credential is still verified).
struct ResponseVerifiers: Sendable {
    let mdoc: MDocVerifier
    let sdJWTIssuerKeySource: IssuerKeySource
    /// Token Status List check for SD-JWT VCs with a `status` claim; nil when no fetcher is configured.
    let sdJWTStatusCheck: StatusListCheck?

    init(_ trust: IssuerTrust) {
        mdoc = MDocVerifier(trustAnchors: TrustAnchors(trust.iacaRoots))
        sdJWTIssuerKeySource = .x5c(anchors: trust.sdJWTAnchors, cache: X5CChainCache())
        sdJWTStatusCheck = trust.statusListFetcher.map { StatusListCheck(fetcher: $0) }
    }
}
