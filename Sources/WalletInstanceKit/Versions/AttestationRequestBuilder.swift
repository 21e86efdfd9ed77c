import Crypto
import Foundation
import ITWalletProtocol
import TesseraJOSE

/// Builds each version's Wallet (Instance) Attestation Request the way pagopa/io-react-native-wallet does, signed
/// by the new attestation key whose public JWK goes into `cnf` (with `kid` = its RFC 7638 thumbprint):
/// - 1.0 (`wp-war+jwt`, 1.0 "Wallet Attestation Request"): `iss` = thumbprint, `aud` = the provider, `nonce`,
///   `hardware_key_tag`, `hardware_signature`, `integrity_assertion`, `cnf`, `iat`, `exp`; client_data with `challenge`.
/// - 1.3 (`wia-request+jwt`, the production "1.3.3" client): `iss` = `hardware_key_tag`, no `aud`, plus `platform`,
///   `wallet_solution_id`, `wallet_solution_version`; client_data with `challenge`.
/// - 1.5 (`wia-request+jwt`, 1.5.0 "Wallet Instance Attestation Request"): as 1.3 but `iss` = thumbprint and
///   client_data with `nonce`.
/// Every request lives one hour (as the production client; the provider accepts up to one).
struct AttestationRequestBuilder: Sendable {
    let integrity: any DeviceIntegrityService
    let solution: WalletSolutionIdentity
    let hardwareKeyID: String
    let hardwareKeyTag: String

    static let lifetime: Int64 = 3600

    /// The signed request for `version` bound to `key`.
    func request(_ version: ITWalletVersion, provider: String, nonce: String, key: P256.Signing.PrivateKey, at now: Date) async throws(WalletInstanceError) -> String {
        let jwk = JWK(publicKey: key.publicKey)
        let thumbprint = jwk.thumbprintBase64URL()
        let clientData = ClientData(encoding: version == .v1_5 ? .nonceMember : .challengeMember, nonce: nonce, thumbprint: thumbprint)
        let proofs = try await integrity.proofs(keyID: hardwareKeyID, clientData: clientData.bytes)
        let iat = Int64(now.timeIntervalSince1970)
        var claims: JSONObject = [
            "nonce": .string(nonce), "hardware_key_tag": .string(hardwareKeyTag),
            "hardware_signature": .string(proofs.hardwareSignature), "integrity_assertion": .string(proofs.integrityAssertion),
            "cnf": ["jwk": .object(jwk.with(kid: thumbprint).jsonObject)], "iat": .integer(iat), "exp": .integer(iat + Self.lifetime),
        ]
        let typ: String
        switch version {
        case .v0_9:
            throw .integrity("0.9 requests are built by WalletInstanceClient")
        case .v1_0:
            typ = ITWalletType.walletProviderAttestationRequest
            claims["iss"] = .string(thumbprint)
            claims["aud"] = .string(provider)
        case .v1_3, .v1_5:
            typ = ITWalletType.walletInstanceAttestationRequest
            claims["iss"] = .string(version == .v1_3 ? hardwareKeyTag : thumbprint)
            claims["platform"] = .string(solution.platform.rawValue)
            claims["wallet_solution_id"] = .string(solution.solutionID)
            claims["wallet_solution_version"] = .string(solution.solutionVersion)
        }
        do {
            return try CompactJWS.sign(header: ["typ": .string(typ), "kid": .string(thumbprint)], claims: claims, key: .es256(key)).compact
        } catch {
            throw .integrity("cannot sign the attestation request")
        }
    }
}
