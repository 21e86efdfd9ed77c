import Foundation
import ITWalletProtocol
import ServiceSupport
import TesseraJOSE

/// The Wallet Attestation of IT-Wallet 0.9 (`wallet-attestation.rst`): a `wallet-attestation+jwt` bound to the
/// wallet's ephemeral key (`cnf.jwk`, `sub` = its thumbprint), valid at most 24 hours, with the wallet's
/// authorization-server-like metadata relying parties read. Its header carries `trust_chain` (required by 0.9).
enum WalletAttestation {
    static let type = ITWalletType.walletAttestation
    static let mediaType = "application/jwt"

    static func claims(_ subject: AttestedInstance) -> JSONObject {
        [
            "iss": .string(subject.issuer),
            "sub": .string(subject.thumbprint),
            "aal": .string(subject.aal),
            "cnf": ["jwk": .object(subject.key.jsonObject)],
            "authorization_endpoint": "eudiw:",
            "response_types_supported": ["vp_token"],
            "response_modes_supported": ["form_post.jwt"],
            "vp_formats_supported": [
                "dc+sd-jwt": ["sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"]],
                "mso_mdoc": ["alg": ["ES256"]],
            ],
            "request_object_signing_alg_values_supported": ["ES256"],
            "presentation_definition_uri_supported": false,
            "iat": .integer(subject.iat),
            "exp": .integer(subject.exp),
        ]
    }

    static func sign(_ subject: AttestedInstance, with signer: AttestationSigner) throws(WireError) -> String {
        try signer.sign(typ: type, claims: claims(subject), carrying: [.trustChain])
    }
}
