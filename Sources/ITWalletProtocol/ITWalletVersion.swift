/// The IT-Wallet technical specification versions a Wallet Provider and a Wallet Instance speak
/// (italia/eid-wallet-it-docs). Each is served its own way, side by side, chosen by endpoint and `typ`.
public enum ITWalletVersion: String, Sendable, CaseIterable, Comparable, Codable {
    /// 0.9.x: the Wallet Attestation (`wallet-attestation+jwt`) from the JWT bearer grant at `/token`.
    case v0_9 = "0.9"
    /// 1.0.x: the Wallet Attestation in three formats (`jwt`, `dc+sd-jwt`, `mso_mdoc`) from `/wallet-attestations`.
    case v1_0 = "1.0"
    /// 1.3 as the production client and backend implement it (io-react-native-wallet "1.3.3", io-wallet): the Wallet
    /// Instance Attestation (`wia-request+jwt`) and the Key (Wallet Unit) Attestation (`wua-request+jwt`) issued apart.
    case v1_3 = "1.3"
    /// 1.5.0: the Wallet Instance Attestation without `iss`, with `client_status`; Key Attestation (`ka-request+jwt`)
    /// with `key_storage_status`; the Wallet Provider as Token Status List issuer.
    case v1_5 = "1.5"

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs).map { index in allCases.firstIndex(of: rhs).map { index < $0 } ?? false } ?? false
    }

    /// Whether this version has a Key Attestation endpoint.
    public var hasKeyAttestation: Bool { self >= .v1_3 }
}
