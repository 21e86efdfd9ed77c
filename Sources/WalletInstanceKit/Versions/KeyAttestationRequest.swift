import Crypto
import Foundation
import ITWalletProtocol
import TesseraCore
import TesseraJOSE

/// Builds a Key Attestation Request: 1.3 `wua-request+jwt` (production "1.3.3": `iss` = `hardware_key_tag`,
/// client_data with `challenge`, top-level `integrity_assertion`) or 1.5 `ka-request+jwt` (1.5.0 "Key Attestation
/// Request": `iss` = the thumbprint, client_data with `nonce`, no top-level `integrity_assertion` on Android), both
/// with `keys_to_attest`: one `key-attestation-request+jwt` per key, signed by that key, carrying
/// `cnf.jwk` and `wscd_key_attestation` (`storage_type`, and on Android the key attestation for the nonce). The
/// outer request is signed by the first key and names it in `cnf`; `hardware_signature` covers
/// `{"<nonce member>", "jwk_thumbprints"}`.
struct KeyAttestationRequest: Sendable {
    let integrity: any DeviceIntegrityService
    let keys: any WalletKeyAttesting
    let solution: WalletSolutionIdentity
    let hardwareKeyID: String
    let hardwareKeyTag: String

    func request(_ version: ITWalletVersion, nonce: String, walletKeys: [AttestedWalletKey], at now: Date) async throws(WalletInstanceError) -> String {
        guard let first = walletKeys.first else { throw .integrity("no key to attest") }
        let jwks = walletKeys.map { JWK(publicKey: $0.publicKey) }
        let thumbprints = jwks.map { $0.thumbprintBase64URL() }
        let clientData = ClientData(encoding: version == .v1_5 ? .nonceMember : .challengeMember, nonce: nonce, thumbprints: thumbprints)
        let proofs = try await integrity.proofs(keyID: hardwareKeyID, clientData: clientData.bytes)
        let iat = Int64(now.timeIntervalSince1970)
        var elements: [JSONValue] = []
        for (key, jwk) in zip(walletKeys, jwks) {
            var wscd: JSONObject = ["storage_type": "LOCAL_NATIVE"]
            if let attestation = key.androidAttestation { wscd["attestation"] = .string(attestation) }
            let claims: JSONObject = [
                "cnf": ["jwk": .object(jwk.with(kid: jwk.thumbprintBase64URL()).jsonObject)], "wscd_key_attestation": .object(wscd),
                "iat": .integer(iat), "exp": .integer(iat + AttestationRequestBuilder.lifetime),
            ]
            elements.append(.string(try await sign(ITWalletType.keyAttestationRequestElement, claims, key: key, kid: jwk.thumbprintBase64URL())))
        }
        let firstJWK = JWK(publicKey: first.publicKey)
        let firstThumbprint = firstJWK.thumbprintBase64URL()
        var claims: JSONObject = [
            "iss": .string(version == .v1_3 ? hardwareKeyTag : firstThumbprint), "nonce": .string(nonce),
            "hardware_key_tag": .string(hardwareKeyTag), "hardware_signature": .string(proofs.hardwareSignature),
            "cnf": ["jwk": .object(firstJWK.with(kid: firstThumbprint).jsonObject)], "platform": .string(solution.platform.rawValue),
            "wallet_solution_id": .string(solution.solutionID), "wallet_solution_version": .string(solution.solutionVersion),
            "keys_to_attest": .array(elements), "iat": .integer(iat), "exp": .integer(iat + AttestationRequestBuilder.lifetime),
        ]
        if version == .v1_3 || solution.platform == .ios { claims["integrity_assertion"] = .string(proofs.integrityAssertion) }
        let typ = version == .v1_5 ? ITWalletType.keyAttestationRequest : ITWalletType.walletUnitAttestationRequest
        return try await sign(typ, claims, key: first, kid: firstThumbprint)
    }

    /// A compact ES256 JWS signed by the wallet key in the platform's key store (the key never leaves it).
    private func sign(_ typ: String, _ claims: JSONObject, key: AttestedWalletKey, kid: String) async throws(WalletInstanceError) -> String {
        let header: JSONObject = ["alg": "ES256", "typ": .string(typ), "kid": .string(kid)]
        let input = Base64URL.encode(header.serialized()) + "." + Base64URL.encode(claims.serialized())
        let signature = try await keys.sign(walletKeyID: key.keyID, Data(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }
}
