import Crypto
import Foundation
import ServiceSupport
import MDoc
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import TesseraJOSE

/// The 1.0 Wallet Attestation in `mso_mdoc` format (1.0.2 "Wallet Attestation mdoc"), for proximity presentation:
/// an ISO/IEC 18013-5 IssuerSigned whose MSO binds the wallet's key (`deviceKeyInfo.deviceKey` = `cnf` as a
/// COSE_Key), signed with the signing identity (`x5chain` = its chain), valid exactly as long as the `jwt` format.
/// Sent as base64url without padding of the CBOR IssuerSigned (the text's encoding; production sends standard
/// base64).
enum MDocWalletAttestation {
    /// `org.iso.18013.5.1.IT`: the 1.1 errata and production write `IT`; 1.0.0–1.0.2 wrote `it`.
    static let namespace = "org.iso.18013.5.1.IT"
    static let docType = namespace + ".WalletAttestation"

    static func issue(
        _ subject: AttestedInstance, signingIdentity identity: ProviderSigningIdentity, clock: any TesseraClock,
        random: any RandomSource
    ) throws(WireError) -> String {
        // The request is ES256-signed by this key, so it is P-256; anything else cannot be a device key here.
        guard case .es256(let deviceKey)? = try? JWSVerificationKey(jwk: subject.key) else {
            throw AttestationRequestError.malformed("cnf.jwk must be a P-256 key").wire(.itWallet)
        }
        // wallet_name: the Wallet Solution's name, as in the other formats (the 1.0 table's "MUST be the Identifier of
        // the Wallet Provider" contradicts its own example, which names the wallet).
        let elements: [String: CBOR] = [
            "sub": .text(subject.thumbprint),
            "aal": .text(subject.aal),
            "wallet_name": .text(subject.walletName),
            "wallet_link": .text(subject.walletLink),
        ]
        let issuer = MDocIssuer(
            documentSignerKey: .p256(identity.privateKey), certificateChain: identity.certificateChain, clock: clock,
            random: random)
        do {
            let issued = try issuer.issue(
                docType: docType, nameSpaces: [namespace: elements], deviceKey: COSEKey(deviceKey),
                validFrom: subject.issuedAt, validUntil: subject.expiresAt)
            return Base64URL.encode(try issued.encoded())
        } catch {
            throw .server
        }
    }
}
