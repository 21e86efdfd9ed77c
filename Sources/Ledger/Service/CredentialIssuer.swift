import Crypto
import Foundation
import LedgerProtocol
import SQLKit
import ServiceSupport
import TesseraJOSE
import TesseraCore

/// The credential version a device presented at a successful authentication. Its CEK and LAT stay valid next to the
/// new ones until the device presents the new package: if the answer is lost on the way (the ledger committed, then
/// crashed or the connection dropped), the device still holds this version and can still log in. Older versions
/// are deleted, so an older blob no longer opens and an older LAT is never proven again.
struct KeptCredential: Sendable {
    let cekVersion: Int
    let latVersion: Int
    let latSealed: String
}

/// Makes a credential package: a fresh CEK version for the user, the blob `{user_guid, password_hash, kdf, policies}`
/// sealed to it with `aad = user_guid|cek_version`, and a fresh LAT (kept sealed by the ledger). Runs inside the
/// caller's transaction: all of it or none of it.
struct CredentialIssuer: Sendable {
    let keys: LedgerKeys
    let configuration: LedgerConfiguration

    /// `current` is the user row's versions as the caller read them: the row is only updated if they are still the
    /// same (one conditional UPDATE, before anything else is written), so of two concurrent authentications of one
    /// user only one rotates; the other gets 409 `concurrent_authentication`. The package has no `transaction_keys` yet.
    func issue(
        user: String, passwordHash: Data, kdf: KDFParameters, current: (cekVersion: Int, latVersion: Int), keeping kept: KeptCredential?,
        credentialID: String, sql: ServiceSQL
    ) async throws(WireError) -> JSONObject {
        let cekVersion = current.cekVersion + 1
        let latVersion = current.latVersion + 1
        let cek = try keys.x25519()
        let cekID = "\(user)|\(cekVersion)"
        let cekSealed = Base64URL.encode(try keys.master.seal(cek.rawRepresentation, purpose: "cek", id: cekID))
        let policies: JSONObject = [
            "max_failures": .integer(Int64(configuration.maxFailures)), "lockout_seconds": .integer(Int64(configuration.lockout)),
        ]
        let blobPlaintext: JSONObject = [
            "user_guid": .string(user), "password_hash": .string(Base64URL.encode(passwordHash)), "kdf": .object(kdf.json),
            "policies": .object(policies),
        ]
        let blob: SealedBox
        do {
            blob = try Seal.seal(
                to: cek.publicKey, info: .credentialEncryption, aad: LedgerAAD.blob(userGUID: user, cekVersion: cekVersion),
                plaintext: blobPlaintext.serialized(), random: configuration.random)
        } catch {
            throw .server
        }
        let lat = configuration.random.bytes(32)
        let latID = keys.identifier()
        let latSealed = Base64URL.encode(try keys.master.seal(lat, purpose: "lat", id: user))
        let rotated = try await sql.run { db in
            try await db.update("lg_users")
                .set("enrolled", to: SQLBind(true)).set("credential_id", to: SQLBind(credentialID))
                .set("cek_version", to: SQLBind(cekVersion)).set("lat_id", to: SQLBind(latID))
                .set("lat_version", to: SQLBind(latVersion)).set("lat_sealed", to: SQLBind(latSealed))
                .set("lat_previous_version", to: SQLBind(kept?.latVersion)).set("lat_previous_sealed", to: SQLBind(kept?.latSealed))
                .set("failed_attempts", to: SQLBind(0)).set("locked_until", to: SQLBind(0.0))
                .where("id", .equal, user).where("cek_version", .equal, SQLBind(current.cekVersion))
                .returning("id").first() != nil
        }
        guard rotated else {
            throw WireError(.conflict, "concurrent_authentication", "another authentication of this user finished first: start again")
        }
        try await sql.run { db in
            if let kept {
                try await db.delete(from: "lg_ceks").where("user_guid", .equal, user).where("version", .notEqual, SQLBind(kept.cekVersion)).run()
            } else {
                try await db.delete(from: "lg_ceks").where("user_guid", .equal, user).run()
            }
            try await db.insert(into: "lg_ceks").columns("id", "user_guid", "version", "private_sealed")
                .values(SQLBind(cekID), SQLBind(user), SQLBind(cekVersion), SQLBind(cekSealed)).run()
        }
        var blobJSON = blob.json
        blobJSON["cek_version"] = .integer(Int64(cekVersion))
        return [
            "user_guid": .string(user), "credential_id": .string(credentialID), "blob": .object(blobJSON),
            "lat": ["lat_id": .string(latID), "token": .string(Base64URL.encode(lat)), "version": .integer(Int64(latVersion))],
        ]
    }
}
