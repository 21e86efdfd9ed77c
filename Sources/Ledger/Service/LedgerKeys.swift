import Crypto
import Foundation
import LedgerProtocol
import SQLKit
import ServiceSupport
import TesseraCore
import TesseraJOSE

/// Key material the ledger makes: transaction key pairs (the device gets the public halves) and per-user CEKs,
/// their private halves sealed with the master key before they reach the database.
struct LedgerKeys: Sendable {
    let master: MasterKey
    let random: any RandomSource

    func x25519() throws(WireError) -> Curve25519.KeyAgreement.PrivateKey {
        guard let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: random.bytes(32)) else { throw .server }
        return key
    }

    func identifier() -> String { Base64URL.encode(random.bytes(16)) }

    /// Inserts `count` fresh transaction keys for `user`; returns their `{key_id, public_key}`.
    func addTransactionKeys(_ count: Int, user: String, now: Date, sql: ServiceSQL) async throws(WireError) -> [KeyRow] {
        var rows: [KeyRow] = []
        var sealed: [String] = []
        for _ in 0..<count {
            let key = try x25519()
            let id = identifier()
            rows.append(KeyRow(id: id, public_key: Base64URL.encode(key.publicKey.rawRepresentation)))
            sealed.append(Base64URL.encode(try master.seal(key.rawRepresentation, purpose: "ltk", id: id)))
        }
        let values = zip(rows, sealed).map { ($0, $1) }
        // One multi-row INSERT: each statement costs a hop between task, event loop and the database's threads.
        try await sql.run { db in
            var insert = db.insert(into: "lg_transaction_keys")
                .columns("id", "user_guid", "public_key", "private_sealed", "used", "created_at")
            for (index, (row, privateSealed)) in values.enumerated() {
                insert = insert.values(
                    SQLBind(row.id), SQLBind(user), SQLBind(row.public_key), SQLBind(privateSealed), SQLBind(false),
                    SQLBind(now.timeIntervalSince1970 + Double(index) / 1_000_000))
            }
            try await insert.run()
        }
        return rows
    }

    /// The private half of a transaction key, from its sealed form.
    func openTransactionKey(_ sealed: String, keyID: String) throws(WireError) -> Curve25519.KeyAgreement.PrivateKey {
        guard let bytes = Base64URL.bytes(sealed), let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: try master.open(bytes, purpose: "ltk", id: keyID))
        else { throw .server }
        return key
    }

    func openCEK(_ sealed: String, user: String, version: Int) throws(WireError) -> Curve25519.KeyAgreement.PrivateKey {
        guard let bytes = Base64URL.bytes(sealed),
            let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: try master.open(bytes, purpose: "cek", id: "\(user)|\(version)"))
        else { throw .server }
        return key
    }

    static func keysJSON(_ rows: [KeyRow]) -> JSONValue {
        .array(rows.map { .object(["key_id": .string($0.id), "public_key": .string($0.public_key)]) })
    }
}
