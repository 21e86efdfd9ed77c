/// The JOSE `typ` values of the IT-Wallet requests and attestations. A `typ` names a claim set; an endpoint takes
/// only its own.
public enum ITWalletType {
    // Requests a Wallet Instance signs.
    /// 0.9 Wallet Attestation Request (the examples; the claim table says `var+jwt`).
    public static let walletAttestationRequest = "war+jwt"
    /// 0.9 claim table's spelling of the same request.
    public static let walletAttestationRequestVariant = "var+jwt"
    /// 1.0 Wallet Attestation Request.
    public static let walletProviderAttestationRequest = "wp-war+jwt"
    /// 1.3 and 1.5 Wallet Instance Attestation Request.
    public static let walletInstanceAttestationRequest = "wia-request+jwt"
    /// 1.3 (production) Wallet Unit / Key Attestation Request.
    public static let walletUnitAttestationRequest = "wua-request+jwt"
    /// 1.5 Key Attestation Request.
    public static let keyAttestationRequest = "ka-request+jwt"
    /// One element of `keys_to_attest`, signed by the key it asks to have attested (1.3, 1.5).
    public static let keyAttestationRequestElement = "key-attestation-request+jwt"
    /// The 1.3.x texts' combined Wallet App + Wallet Unit Attestation request (no production client sends it).
    public static let combinedAttestationsRequest = "attestations-request+jwt"

    // What the Wallet Provider issues.
    /// 0.9 Wallet Attestation.
    public static let walletAttestation = "wallet-attestation+jwt"
    /// 1.0+ Wallet (Instance) Attestation, OAuth 2.0 Attestation-Based Client Authentication's client attestation.
    public static let clientAttestation = "oauth-client-attestation+jwt"
    /// 1.3+ Key Attestation (Wallet Unit Attestation).
    public static let keyAttestation = "key-attestation+jwt"
    /// 1.0 Wallet Attestation in SD-JWT VC form.
    public static let sdJWTAttestation = "dc+sd-jwt"
    /// The Entity Configuration (OpenID Federation).
    public static let entityStatement = "entity-statement+jwt"
}
