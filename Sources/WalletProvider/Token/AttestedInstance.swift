import Foundation
import TesseraJOSE

/// What a Wallet Attestation states about the instance, whatever its format: one key (`cnf`), one validity, the
/// provider's identifier and the Wallet Solution's name and link. The 1.0 formats are all made from one value,
/// so they cannot disagree.
struct AttestedInstance: Sendable {
    /// The provider's entity identifier (`iss`).
    let issuer: String
    /// The wallet's key, `cnf.jwk` of the request.
    let key: JWK
    /// RFC 7638 thumbprint of `key`: the instance's `sub`.
    let thumbprint: String
    let aal: String
    let walletName: String
    let walletLink: String
    /// Whole seconds: the JWT forms carry NumericDates, and the mdoc's ValidityInfo states the same instants.
    let issuedAt: Date
    let expiresAt: Date

    /// Valid from `now` (cut to whole seconds) for `lifetime`, at most 24 hours (IT-Wallet 0.9 and 1.0).
    init(request: WalletAttestationRequest, configuration: WalletProviderConfiguration, issuer: String, now: Date) {
        self.issuer = issuer
        key = request.ephemeralKey
        thumbprint = request.thumbprint
        aal = configuration.aal
        walletName = configuration.walletSolution.name
        walletLink = configuration.walletSolution.link
        issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        expiresAt = issuedAt.addingTimeInterval(min(configuration.attestationLifetime, 86_400).rounded(.down))
    }

    var iat: Int64 { Int64(issuedAt.timeIntervalSince1970) }
    var exp: Int64 { Int64(expiresAt.timeIntervalSince1970) }
}
