import ITWalletProtocol
import SDJWT
import ServiceSupport
import TesseraCore
import TesseraJOSE

/// The 1.0 Wallet Attestation in `dc+sd-jwt` format (1.0.2 "Wallet Attestation SD-JWT"), for remote presentation:
/// an SD-JWT VC with `iss`, `sub`, `aal`, `cnf`, `vct`, `iat`, `exp` in clear and `wallet_name`, `wallet_link` as
/// Disclosures; header `typ`, `kid`, `trust_chain`, `x5c` as the `jwt` format. Sent in the RFC 9901 issuance form
/// `<jwt>~<disclosure>~<disclosure>~` (the production backend omits the final `~`; Tessera's wallet reads both).
enum SDJWTWalletAttestation {
    /// `vct`: `<entity identifier>/vct/v1.0/WalletAttestation`. The 1.0 texts give `wallet.atestation.example/v1.0`,
    /// a misspelt example host that is not even a URL; production uses a URL under its own trust anchor. Ours is
    /// under the provider's own identifier, which it controls.
    static func vct(issuer: String) -> String {
        WalletAttestationRequest.withoutTrailingSlash(issuer) + "/vct/v1.0/WalletAttestation"
    }

    static func issue(
        _ subject: AttestedInstance, with signer: AttestationSigner, clock: any TesseraClock, random: any RandomSource
    ) throws(WireError) -> String {
        let claims: JSONObject = [
            "iss": .string(subject.issuer),
            "sub": .string(subject.thumbprint),
            "aal": .string(subject.aal),
            "cnf": ["jwk": .object(subject.key.jsonObject)],
            "vct": .string(vct(issuer: subject.issuer)),
            "iat": .integer(subject.iat),
            "exp": .integer(subject.exp),
            "wallet_name": .string(subject.walletName),
            "wallet_link": .string(subject.walletLink),
        ]
        do {
            let header = try signer.header(typ: ITWalletType.sdJWTAttestation, carrying: [.trustChain, .x5c])
            let issuer = try SDJWTIssuer(signingKey: signer.identity.signingKey, clock: clock, random: random)
            let disclosable = [try ClaimsPathPointer(keys: "wallet_name"), try ClaimsPathPointer(keys: "wallet_link")]
            return try issuer.issue(claims: claims, disclosable: disclosable, header: header).compact
        } catch let error as WireError {
            throw error
        } catch {
            throw .server
        }
    }
}
