import Foundation
import ITWalletProtocol
import TesseraJOSE

/// The Wallet Instance Attestation (`oauth-client-attestation+jwt`) of 1.3 and 1.5, bound to the request's key.
/// Signed by `AttestationSigner` with `x5c` (required by both) and `trust_chain` (optional in both, offered so a
/// relying party that resolves the federation can verify it too).
enum WalletInstanceAttestation {
    /// The `cnf.jwk` the attestation states: the key's public members, `alg` ES256 and `kid` = its RFC 7638
    /// thumbprint (io-wallet adds `alg`; the production client requires `cnf.jwk.kid`).
    static func confirmation(_ key: JWK) -> JSONValue {
        var jwk = key.publicJWK.with(kid: key.thumbprintBase64URL()).jsonObject
        jwk["alg"] = "ES256"
        return ["jwk": .object(jwk)]
    }

    /// 1.3 as io-wallet issues it (the production split draft): `iss` = the provider, `sub` = the thumbprint of
    /// `cnf.jwk`, `wallet_name`, `wallet_link`, `iat`, `exp`; no status (a revoked instance simply gets no new one).
    static func v1_3(
        issuer: String, key: JWK, solution: WalletProviderConfiguration.WalletSolution, now: Date, lifetime: TimeInterval
    ) -> JSONObject {
        [
            "iss": .string(issuer),
            "sub": .string(key.thumbprintBase64URL()),
            "cnf": confirmation(key),
            "wallet_name": .string(solution.name),
            "wallet_link": .string(solution.link),
            "iat": .integer(Int64(now.timeIntervalSince1970)),
            "exp": .integer(Int64(now.addingTimeInterval(min(lifetime, 86_400)).timeIntervalSince1970)),
        ]
    }

    /// 1.5 §12.1.4: no `iss` (the provider is the `x5c` certificate's subject); `sub` = the Wallet Solution's
    /// identifier; `wallet_name`, `wallet_link`, `wallet_version`; `iat`, `exp` (at most 24 hours); `client_status` =
    /// the instance's status list entry and until when the provider keeps it maintained.
    static func v1_5(
        key: JWK, solution: WalletProviderConfiguration.WalletSolution, status: JSONValue, statusMaintainedUntil: Date,
        now: Date, lifetime: TimeInterval
    ) -> JSONObject {
        [
            "sub": .string(solution.identifier),
            "cnf": confirmation(key),
            "wallet_name": .string(solution.name),
            "wallet_link": .string(solution.link),
            "wallet_version": .string(solution.version),
            "client_status": ["status": status, "exp": .integer(Int64(statusMaintainedUntil.timeIntervalSince1970))],
            "iat": .integer(Int64(now.timeIntervalSince1970)),
            "exp": .integer(Int64(now.addingTimeInterval(min(lifetime, 86_400)).timeIntervalSince1970)),
        ]
    }
}
