import ITWalletProtocol
import ServiceSupport
import TesseraJOSE

/// The formats of the 1.0 Wallet Attestation response (`wallet_attestations[].format`, 1.0.2
/// `wallet-provider-endpoint.rst`), issued together in this order (the production backend's) and bound to the
/// same key with the same validity.
enum WalletAttestationFormat: String, Sendable, CaseIterable {
    /// OAuth Client Attestation, for issuance.
    case jwt
    /// SD-JWT VC, for remote presentation.
    case sdJWT = "dc+sd-jwt"
    /// ISO mdoc IssuerSigned, for proximity presentation.
    case mdoc = "mso_mdoc"

    /// `{"wallet_attestations": [{"format", "wallet_attestation"}, …]}`, one per format.
    static func response(
        _ subject: AttestedInstance, signer: AttestationSigner, configuration: WalletProviderConfiguration
    ) throws(WireError) -> JSONObject {
        var attestations: [JSONValue] = []
        for format in allCases {
            let attestation: String
            switch format {
            case .jwt: attestation = try ClientAttestationJWT.sign(subject, with: signer)
            case .sdJWT:
                attestation = try SDJWTWalletAttestation.issue(
                    subject, with: signer, clock: configuration.clock, random: configuration.random)
            case .mdoc:
                attestation = try MDocWalletAttestation.issue(
                    subject, signingIdentity: signer.identity, clock: configuration.clock, random: configuration.random)
            }
            attestations.append(["format": .string(format.rawValue), "wallet_attestation": .string(attestation)])
        }
        return ["wallet_attestations": .array(attestations)]
    }
}
