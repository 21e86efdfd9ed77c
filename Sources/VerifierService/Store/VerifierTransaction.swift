import Fluent
import Foundation
import SQLKit

/// One presentation request and what became of it (the `transactions` table).
///
/// `state` and `response_code` are single-use: `TransactionStore` consumes each with one conditional UPDATE
/// (ARCHITECTURE decision 7), so two concurrent responses for one request cannot both be accepted, even when they
/// reach different app instances on one PostgreSQL.
final class VerifierTransaction: Model, @unchecked Sendable {
    static let schema = "transactions"

    @ID(custom: "id", generatedBy: .user) var id: String?
    @Field(key: "created_at") var createdAt: Double
    @Field(key: "expires_at") var expiresAt: Double
    /// `pending` → `completed` | `failed` in one conditional UPDATE; `expired` is computed from `expires_at`.
    @Field(key: "status") var status: String
    /// The DCQL query exactly as sent in the Request Object (JSON text).
    @Field(key: "dcql_query") var dcqlQuery: String
    @Field(key: "nonce") var nonce: String
    @Field(key: "state") var state: String
    @Field(key: "response_mode") var responseMode: String
    /// The ephemeral response encryption key (P-256, raw scalar), only for `direct_post.jwt`.
    @OptionalField(key: "encryption_key") var encryptionKey: Data?
    /// How many times the Request Object was fetched (it may be fetched more than once).
    @Field(key: "request_fetches") var requestFetches: Int
    /// SHA-256 of the response code handed to the wallet's redirect; the code itself is never stored.
    @OptionalField(key: "response_code_hash") var responseCodeHash: String?
    @Field(key: "response_code_used") var responseCodeUsed: Bool
    /// The verified claims (JSON text), once completed.
    @OptionalField(key: "result") var result: String?
    /// The OAuth error code (and description) when the wallet declined or the response failed verification.
    @OptionalField(key: "error") var error: String?
    @OptionalField(key: "error_description") var errorDescription: String?

    init() {}
}

/// Creates the `transactions` table.
struct CreateVerifierTransactions: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(VerifierTransaction.schema)
            .field("id", .string, .identifier(auto: false))
            .field("created_at", .double, .required)
            .field("expires_at", .double, .required)
            .field("status", .string, .required)
            .field("dcql_query", .string, .required)
            .field("nonce", .string, .required)
            .field("state", .string, .required)
            .field("response_mode", .string, .required)
            .field("encryption_key", .data)
            .field("request_fetches", .int, .required)
            .field("response_code_hash", .string)
            .field("response_code_used", .bool, .required)
            .field("result", .string)
            .field("error", .string)
            .field("error_description", .string)
            .unique(on: "state")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(VerifierTransaction.schema).delete()
    }
}

/// Indexes `expires_at`, so that deleting old transactions (`TransactionStore.purge`) does not scan the table.
struct IndexVerifierTransactionExpiry: AsyncMigration {
    func prepare(on database: any Database) async throws {
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.create(index: "transactions_expires_at").on(VerifierTransaction.schema).column("expires_at").run()
    }

    func revert(on database: any Database) async throws {
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.drop(index: "transactions_expires_at").run()
    }
}
