import Foundation
import TesseraJOSE

/// The Key Attestation (`key-attestation+jwt`) of 1.3 (io-wallet's, also served as the Wallet Unit Attestation) and
/// 1.5 §12.1.5: the attested keys, where they are stored and how their use is authenticated, and a status list
/// entry of their own ("per key attestation index"; revoking the instance flips it). Signed with `x5c` (required)
/// and `trust_chain` (optional, offered).
enum KeyAttestation {
    /// The attested keys as JWKs, in `keys_to_attest` order, each with `kid` = its thumbprint.
    static func attestedKeys(_ keys: [JWK]) -> JSONValue {
        .array(keys.map { .object($0.publicJWK.with(kid: $0.thumbprintBase64URL()).jsonObject) })
    }

    /// 1.3 as io-wallet issues it: `iss`, `iat`, `exp`, `attested_keys`, `key_storage` (one level per key, as
    /// io-wallet writes it), `user_authentication`, `status.status_list`.
    static func v1_3(
        issuer: String, keys: [JWK], keyStorage: [ResistanceLevel], status: JSONValue, now: Date, lifetime: TimeInterval
    ) -> JSONObject {
        [
            "iss": .string(issuer),
            "attested_keys": attestedKeys(keys),
            "key_storage": .array(keyStorage.map { .string($0.rawValue) }),
            "user_authentication": .array(keyStorage.map { _ in .string(ResistanceLevel.userAuthentication.rawValue) }),
            "status": status,
            "iat": .integer(Int64(now.timeIntervalSince1970)),
            "exp": .integer(Int64(now.addingTimeInterval(lifetime).timeIntervalSince1970)),
        ]
    }

    /// 1.5 §12.1.5: no `iss`; `iat`, `exp`, `attested_keys` (all from one key storage), its `key_storage` level and
    /// `user_authentication`, `key_storage_status` = the entry and until when the provider keeps it maintained.
    static func v1_5(
        keys: [JWK], keyStorage: ResistanceLevel, status: JSONValue, statusMaintainedUntil: Date, now: Date,
        lifetime: TimeInterval
    ) -> JSONObject {
        [
            "attested_keys": attestedKeys(keys),
            "key_storage": [.string(keyStorage.rawValue)],
            "user_authentication": [.string(ResistanceLevel.userAuthentication.rawValue)],
            "key_storage_status": ["status": status, "exp": .integer(Int64(statusMaintainedUntil.timeIntervalSince1970))],
            "iat": .integer(Int64(now.timeIntervalSince1970)),
            "exp": .integer(Int64(now.addingTimeInterval(lifetime).timeIntervalSince1970)),
        ]
    }
}
