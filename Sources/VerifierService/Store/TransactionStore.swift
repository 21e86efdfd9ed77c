import Crypto
import Fluent
import Foundation
import SQLKit
import ServiceSupport
import TesseraJOSE
import TesseraCore

/// The transaction table's operations. Single-use values are taken with one conditional statement each
/// (`UPDATE … WHERE … RETURNING`), never read-then-write (ARCHITECTURE decision 7), so concurrent app instances
/// on one PostgreSQL cannot both accept a response or both hand out a result.
struct TransactionStore: Sendable {
    let db: ServiceSQL

    private var sql: any SQLDatabase {
        get throws(APIError) {
            do { return try db.sql } catch { throw .server("the database does not speak SQL") }
        }
    }

    /// One INSERT with every column named (Fluent's `create` finds a model's fields by reflection on every call).
    func insert(_ transaction: VerifierTransaction) async throws(APIError) {
        do {
            let query: SQLQueryString = """
                INSERT INTO transactions (\(unsafeRaw: Self.columnList)) VALUES (\(binds: [
                    transaction.id ?? "", transaction.createdAt, transaction.expiresAt, transaction.status,
                    transaction.dcqlQuery, transaction.nonce, transaction.state, transaction.responseMode,
                    transaction.encryptionKey, transaction.requestFetches, transaction.responseCodeHash,
                    transaction.responseCodeUsed, transaction.result, transaction.error, transaction.errorDescription,
                ]))
                """
            try await sql.raw(query).run()
        } catch let error as APIError {
            throw error
        } catch {
            throw .server("storing the transaction failed")
        }
    }

    /// The row read with one SELECT of named columns and decoded column by column (no model reflection).
    func find(_ id: String) async throws(APIError) -> VerifierTransaction? {
        guard TransactionID.isWellFormed(id) else { return nil }
        do {
            guard let row = try await sql.raw("SELECT \(unsafeRaw: Self.columnList) FROM transactions WHERE id = \(bind: id)")
                .first()
            else { return nil }
            return try Self.transaction(from: row)
        } catch let error as APIError {
            throw error
        } catch {
            throw .server("reading the transaction failed")
        }
    }

    /// Every column of `transactions`, in the order `insert` binds them.
    static let columns = [
        "id", "created_at", "expires_at", "status", "dcql_query", "nonce", "state", "response_mode", "encryption_key",
        "request_fetches", "response_code_hash", "response_code_used", "result", "error", "error_description",
    ]

    /// The columns for SELECT, INSERT and RETURNING. The hot statements are written as query strings: building
    /// them with SQLKit's builders serialized every identifier through existentials, 6 % of the service's CPU.
    static let columnList = columns.joined(separator: ", ")

    static func transaction(from row: any SQLRow) throws -> VerifierTransaction {
        let transaction = VerifierTransaction()
        transaction.id = try row.decode(column: "id", as: String.self)
        transaction.createdAt = try row.decode(column: "created_at", as: Double.self)
        transaction.expiresAt = try row.decode(column: "expires_at", as: Double.self)
        transaction.status = try row.decode(column: "status", as: String.self)
        transaction.dcqlQuery = try row.decode(column: "dcql_query", as: String.self)
        transaction.nonce = try row.decode(column: "nonce", as: String.self)
        transaction.state = try row.decode(column: "state", as: String.self)
        transaction.responseMode = try row.decode(column: "response_mode", as: String.self)
        transaction.encryptionKey = try row.decode(column: "encryption_key", as: Data?.self)
        transaction.requestFetches = try row.decode(column: "request_fetches", as: Int.self)
        transaction.responseCodeHash = try row.decode(column: "response_code_hash", as: String?.self)
        transaction.responseCodeUsed = try row.decode(column: "response_code_used", as: Bool.self)
        transaction.result = try row.decode(column: "result", as: String?.self)
        transaction.error = try row.decode(column: "error", as: String?.self)
        transaction.errorDescription = try row.decode(column: "error_description", as: String?.self)
        return transaction
    }

    /// Counts a Request Object fetch and returns the row as updated, in one statement; nil when the transaction is
    /// unknown, no longer pending or expired.
    func recordRequestFetch(_ id: String, now: Date) async throws(APIError) -> VerifierTransaction? {
        guard TransactionID.isWellFormed(id) else { return nil }
        do {
            let query: SQLQueryString = """
                UPDATE transactions SET request_fetches = request_fetches + 1 WHERE id = \(bind: id) \
                AND status = \(bind: TransactionStatus.pending.rawValue) AND expires_at > \(bind: now.timeIntervalSince1970) \
                RETURNING \(unsafeRaw: Self.columnList)
                """
            guard let row = try await sql.raw(query).first()
            else { return nil }
            return try Self.transaction(from: row)
        } catch let error as APIError {
            throw error
        } catch {
            throw .server("updating the transaction failed")
        }
    }

    /// The verdict on a response, written with one conditional statement (§8.2: one response per request):
    /// `pending` → `completed` with the verified result and the hash of a fresh response code, only while the
    /// transaction is still pending and unexpired; the encryption key is dropped. False when another response
    /// already closed the transaction (it lost the race) or it expired meanwhile: nothing was written.
    func complete(_ id: String, now: Date, result: String, responseCode: String) async throws(APIError) -> Bool {
        try await close(
            id, now: now, status: .completed,
            "result = \(bind: result), response_code_hash = \(bind: Self.hash(responseCode))")
    }

    /// The verdict for a response the wallet declined (§8.5) or that failed verification (§8.6), on the same
    /// terms as `complete`.
    func fail(_ id: String, now: Date, error: String, description: String?) async throws(APIError) -> Bool {
        try await close(id, now: now, status: .failed, "error = \(bind: error), error_description = \(bind: description)")
    }

    /// `UPDATE transactions SET status = …, encryption_key = NULL, … WHERE id = ? AND status = 'pending'
    /// AND expires_at > ? RETURNING id`: the state is consumed and the verdict recorded in one atomic statement, so
    /// no transaction is held open across verification (which may fetch status lists over the network).
    private func close(
        _ id: String, now: Date, status: TransactionStatus, _ assignments: SQLQueryString
    ) async throws(APIError) -> Bool {
        let query: SQLQueryString =
            "UPDATE transactions SET status = \(bind: status.rawValue), encryption_key = NULL, " + assignments
            + """
             WHERE id = \(bind: id) AND status = \(bind: TransactionStatus.pending.rawValue) \
            AND expires_at > \(bind: now.timeIntervalSince1970) RETURNING id
            """
        do {
            return ServiceMetrics.consumed("state", when: try await sql.raw(query).first() != nil)
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
            let row = try await sql.update(VerifierTransaction.schema)
                .set("response_code_used", to: true)
                .where("id", .equal, id).where("response_code_hash", .equal, Self.hash(code))
                .where("response_code_used", .equal, false)
                .returning("result").first(decoding: Row.self)
            ServiceMetrics.consumed("response_code", when: row != nil)
            return row?.result
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
