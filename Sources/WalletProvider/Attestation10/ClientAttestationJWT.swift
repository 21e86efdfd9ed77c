import ITWalletProtocol
import ServiceSupport
import TesseraJOSE

/// The 1.0 Wallet Attestation in `jwt` format (1.0.2 `wallet-provider-endpoint.rst` "Wallet Attestation JWT"): an
/// `oauth-client-attestation+jwt` (OAuth 2.0 Attestation-Based Client Authentication), the wallet's client
/// attestation at Credential Issuers. Header: `kid`, `trust_chain` (required in 1.0.0–1.0.2) and `x5c` (optional
/// there, included so relying parties without the federation can verify it).
enum ClientAttestationJWT {
    static let type = ITWalletType.clientAttestation

    static func claims(_ subject: AttestedInstance) -> JSONObject {
        [
            "iss": .string(subject.issuer),
            "sub": .string(subject.thumbprint),
            "aal": .string(subject.aal),
            "cnf": ["jwk": .object(subject.key.jsonObject)],
            "wallet_name": .string(subject.walletName),
            "wallet_link": .string(subject.walletLink),
            "iat": .integer(subject.iat),
            "exp": .integer(subject.exp),
        ]
    }

    static func sign(_ subject: AttestedInstance, with signer: AttestationSigner) throws(WireError) -> String {
        try signer.sign(typ: type, claims: claims(subject), carrying: [.trustChain, .x5c])
    }
}
