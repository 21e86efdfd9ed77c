/// The Wallet Provider's endpoint paths, relative to its entity identifier. The 1.x texts name no endpoints in the
/// metadata; these are the paths of their examples and of the production backend (io-wallet), served side by side.
public enum ITWalletEndpoint {
    /// `GET`: the Entity Configuration (OpenID Federation §9).
    public static let entityConfiguration = "/.well-known/openid-federation"
    /// `GET`: a single-use nonce, `{"nonce"}` (every version).
    public static let nonce = "/nonce"
    /// `POST`: Wallet Instance registration (production client, 1.0+); `/wallet-instance` (0.9) and
    /// `/instance-initialization` (the 1.x examples) are aliases.
    public static let registration = "/wallet-instances"
    /// Registration paths a provider also serves.
    public static let registrationAliases = ["/wallet-instance", "/instance-initialization"]
    /// `GET`/`PATCH`/`POST` one instance, `PUT …/status` (production): Wallet Instance management (1.0+).
    public static func instance(_ id: String) -> String { registration + "/" + id }
    /// `GET`: a Token Status List (1.3 Key Attestations, 1.5 Wallet Instance and Key Attestations).
    public static func statusList(_ id: String) -> String { "/status-lists/" + id }

    /// Where a version asks for its Wallet (Instance) Attestation.
    public static func attestation(_ version: ITWalletVersion) -> String {
        switch version {
        case .v0_9: "/token"
        case .v1_0: "/wallet-attestations"
        case .v1_3: "/wallet-instance-attestations"
        case .v1_5: "/wallet-instance-attestation"
        }
    }

    /// Where a version asks for a Key Attestation; nil before 1.3.
    public static func keyAttestation(_ version: ITWalletVersion) -> String? {
        switch version {
        case .v0_9, .v1_0: nil
        case .v1_3: "/key-attestations"
        case .v1_5: "/key-attestation"
        }
    }

    /// 0.9.3's JSON `{"assertion"}` Wallet Attestation path (beside `/token`).
    public static let walletAttestationJSON = "/wallet-attestation"
    /// io-wallet's earlier name of the 1.3 Key Attestation endpoint (`{"wallet_unit_attestation"}`).
    public static let walletUnitAttestations = "/wallet-unit-attestations"
}
