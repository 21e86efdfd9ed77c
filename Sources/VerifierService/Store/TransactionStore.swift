import Crypto
import Fluent
import Foundation
import SQLKit
import TesseraJOSE

/// The transaction table's operations. Single-use values are taken with one conditional statement each
/// (`UPDATE … WHERE … RETURNING`), never read-then-write (ARCHITECTURE decision 7), so concurrent app instances
/// on one PostgreSQL cannot both accept a response or both hand out a result.
struct TransactionStore: Sendable {
    let database: any Database

    private var sql: any SQLDatabase {
        get throws(APIError) {
            guard let sql = database as? any SQLDatabase else { throw .server("the database does not speak SQL") }
            return sql
        }
    }

    func insert(_ transaction: VerifierTransaction) async throws(APIError) {
        do {
            try await transaction.create(on: database)
        } catch {
            throw .server("storing the transaction failed")
        }
    }

    func find(_ id: String) async throws(APIError) -> VerifierTransaction? {
        guard TransactionID.isWellFormed(id) else { return nil }
        do {
            return try await VerifierTransaction.find(id, on: database)
        } catch {
            throw .server("reading the transaction failed")
        }
    }

    /// Counts a Request Object fetch; nil when the transaction is unknown, no longer pending or expired.
    func recordRequestFetch(_ id: String, now: Date) async throws(APIError) -> VerifierTransaction? {
        let updated: Bool
        do {
            updated = try await sql.update(VerifierTransaction.schema)
                .set(SQLIdentifier("request_fetches"), to: SQLRaw("request_fetches + 1"))
                .where("id", .equal, id).where("status", .equal, TransactionStatus.pending.rawValue)
                .where("expires_at", .greaterThan, now.timeIntervalSince1970)
                .returning("id").first() != nil
        } catch let error as APIError {
            throw error
        } catch {
            throw .server("updating the transaction failed")
        }
        return updated ? try await find(id) : nil
    }

    /// The verdict on a response, written with one conditional statement (§8.2: one response per request):
    /// `pending` → `completed` with the verified result and the hash of a fresh response code, only while the
    /// transaction is still pending and unexpired; the encryption key is dropped. False when another response
    /// already closed the transaction (it lost the race) or it expired meanwhile: nothing was written.
    func complete(_ id: String, now: Date, result: String, responseCode: String) async throws(APIError) -> Bool {
        try await close(id, now: now, status: .completed) {
            $0.set("result", to: result).set("response_code_hash", to: Self.hash(responseCode))
        }
    }

    /// The verdict for a response the wallet declined (§8.5) or that failed verification (§8.6), on the same
    /// terms as `complete`.
    func fail(_ id: String, now: Date, error: String, description: String?) async throws(APIError) -> Bool {
        try await close(id, now: now, status: .failed) { $0.set("error", to: error).set("error_description", to: description) }
    }

    /// `UPDATE transactions SET status = …, encryption_key = NULL, … WHERE id = ? AND status = 'pending'
    /// AND expires_at > ? RETURNING id`: the state is consumed and the verdict recorded in one atomic statement, so
    /// no transaction is held open across verification (which may fetch status lists over the network).
    private func close(
        _ id: String, now: Date, status: TransactionStatus, _ columns: (SQLUpdateBuilder) -> SQLUpdateBuilder
    ) async throws(APIError) -> Bool {
        do {
            return try await columns(
                sql.update(VerifierTransaction.schema).set("status", to: status.rawValue)
                    .set("encryption_key", to: SQLLiteral.null)
            ).where("id", .equal, id).where("status", .equal, TransactionStatus.pending.rawValue)
                .where("expires_at", .greaterThan, now.timeIntervalSince1970)
                .returning("id").first() != nil
        } catch let error as APIError {
            throw error
        } catch {
            throw .server("updating the transaction failed")
        }
    }

    /// Takes the response code (single-use) and returns the stored result; nil when the code is wrong or used.
    func redeemResponseCode(_ id: String, code: String) async throws(APIError) -> String? {
        struct Row: Decodable { let result: String? }
        do {
            return try await sql.update(VerifierTransaction.schema)
                .set("response_code_used", to: true)
                .where("id", .equal, id).where("response_code_hash", .equal, Self.hash(code))
                .where("response_code_used", .equal, false)
                .returning("result").first(decoding: Row.self)?.result
        } catch let error as APIError {
            throw error
        } catch {
            throw .server("updating the transaction failed")
        }
    }

    /// Deletes transactions that ended or expired more than `age` seconds ago (keeps the table small).
    func purge(olderThan cutoff: Date) async throws(APIError) {
        do {
            try await sql.delete(from: VerifierTransaction.schema).where("expires_at", .lessThan, cutoff.timeIntervalSince1970).run()
        } catch let error as APIError {
            throw error
        } catch {
            throw .server("purging old transactions failed")
        }
    }

    /// Response codes are stored hashed: a database reader cannot redeem them.
    static func hash(_ code: String) -> String { Base64URL.encode(SHA256.hash(data: Data(code.utf8))) }
}

/// Transaction status on the wire. `processing` is no longer written (the verdict is one statement from `pending`);
/// a row an older version left in it is shown as `pending` and never accepts a response.
enum TransactionStatus: String, Sendable {
    case pending, processing, completed, failed, expired
}

/// Transaction identifiers: 22 base64url characters (128 random bits), checked before any query.
enum TransactionID {
    static func isWellFormed(_ id: String) -> Bool {
        id.utf8.count == 22
            && id.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2D || byte == 0x5F
            }
    }
}
