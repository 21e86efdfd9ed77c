/// What the 1.3 / 1.5 endpoints run on (ProviderServices holds it as one property).
struct InstanceAttestations: Sendable {
    let service: InstanceAttestationService

    init(configuration: WalletProviderConfiguration, baseURL: String, prover: AttestationRequestProver, signer: AttestationSigner) {
        service = InstanceAttestationService(configuration: configuration, baseURL: baseURL, prover: prover, signer: signer)
    }
}
