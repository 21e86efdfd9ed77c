// Parts of one E2E retrieve measured alone (where the time goes beyond the floor).

import BenchmarkSupport
import Crypto
import Fluent
import FluentSQLiteDriver
import Foundation
import TesseraCore
import TesseraJOSE
import VaultClient
import VaultProtocol
import Vapor

/// Every computation of one retrieve at both ends, in the order they happen, without the bus and the database:
/// the app's event JSON, envelope seal and JSON; the vault's envelope parse and open, event parse, payload decode,
/// the record's name (HMAC-SHA256 under the naming key, as VaultKeyring names rows), the stored value opened
/// (base64url, ChaCha20-Poly1305 under the data key, AAD table|user|row, as VaultKeyring seals it) and parsed,
/// the result and response JSON, the envelope seal and JSON; the app's envelope parse and open, plaintext parse and
/// typed decode. Random bytes from the system, as both ends take them (event id, two nonces).
struct ComputeOnly: Sendable {
    let sessionKey = SymmetricKey(size: .bits256)
    let encryptionKey = SymmetricKey(size: .bits256)
    let namingKey = SymmetricKey(size: .bits256)
    let user = UUID().uuidString.lowercased()
    let guid: String
    let sessionID = Base64URL.encode(SystemRandomSource().bytes(16))
    let sealedValue: String
    let rowID: String

    init() throws {
        guid = try VaultSubjects.guid(userGUID: user)
        rowID = "\(user)|secret|" + Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data("secret|\(secretKey)".utf8), using: namingKey)))
        let stored: JSONObject = ["value": .string(secretValue)]
        let box = try ChaChaPoly.seal(stored.serialized(), using: encryptionKey, authenticating: Data("vt_records|\(user)|\(rowID)".utf8))
        sealedValue = Base64URL.encode(box.combined)
    }

    func run(seq: UInt64) throws {
        let random = SystemRandomSource()
        // App: the command.
        let id = Base64URL.encode(random.bytes(16))
        let type = DatastoreRetrieveRequest.handler.rawValue
        let subject = VaultSubjects.command(guid, type: type)
        let event = VaultEventMessage(id: id, type: type, payload: DatastoreRetrieveRequest(key: secretKey).payload, timestamp: 1_700_000_000)
        let command = try VaultEnvelope.seal(
            event.encoded(), key: sessionKey, direction: .appToVault, sessionID: sessionID, seq: seq, subject: subject, random: random
        ).encoded()
        // Vault: open, decode, read the record's value, answer.
        let received = try VaultEnvelope(json: command)
        let plaintext = try received.open(key: sessionKey, direction: .appToVault, subject: subject)
        let decoded = try VaultEventMessage(json: plaintext)
        let request = try DatastoreRetrieveRequest(payload: decoded.payload)
        let row = "\(user)|secret|" + Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data("secret|\(request.key)".utf8), using: namingKey)))
        let opened = try ChaChaPoly.open(
            try ChaChaPoly.SealedBox(combined: try Base64URL.decode(sealedValue)), using: encryptionKey,
            authenticating: Data("vt_records|\(user)|\(row)".utf8))
        guard case .string(let value)? = try JSONValue.parse(opened).objectValue?["value"] else { throw BenchmarkFailure("no value") }
        let result = DatastoreRetrieveResult(key: request.key, value: value, version: 1, updatedAt: 1_700_000_000)
        let replySubject = VaultSubjects.reply(guid, type: type, id: decoded.id)
        let reply = try VaultEnvelope.seal(
            VaultEventResponse.success(eventID: decoded.id, result: result.result, timestamp: 1_700_000_000).encoded(), key: sessionKey,
            direction: .vaultToApp, sessionID: sessionID, seq: seq, subject: replySubject, random: random
        ).encoded()
        // App: the answer.
        let answer = try VaultEnvelope(json: reply).open(key: sessionKey, direction: .vaultToApp, subject: replySubject)
        guard case .response(let response) = try VaultPlaintext(json: answer), response.eventID == id,
            try DatastoreRetrieveResult(result: response.result ?? [:]).value.utf8.count == secretValue.utf8.count
        else { throw BenchmarkFailure("the answer does not decode") }
    }
}

/// The vault's SQLite file opened a second time through the same driver, to run the retrieve's one statement
/// (VaultRecords.get: the record row by id) alone: Swift concurrency → the pool's event loop → SQLite's thread pool
/// and back, as the vault's read goes.
actor RecordReader {
    private let app: Application
    private let db: any Database
    private let rowID: String

    private init(app: Application, rowID: String) {
        self.app = app
        db = app.db
        self.rowID = rowID
    }

    static func open(path: String) async throws -> RecordReader {
        let app = try await Application.make(Environment(name: "production", arguments: ["vault-reader"]))
        app.logger.logLevel = .warning
        app.databases.use(.sqlite(.file(path)), as: .sqlite)
        guard let sql = app.db as? any SQLDatabase,
            let row = try await sql.select().column("id").from("vt_records").where("collection", .equal, "secret").first()
        else {
            try? await app.asyncShutdown()
            throw BenchmarkFailure("no record in \(path)")
        }
        return RecordReader(app: app, rowID: try row.decode(column: "id", as: String.self))
    }

    /// The statement of VaultRecords.get, its row decoded as the vault decodes it.
    nonisolated func read() async throws {
        guard let sql = db as? any SQLDatabase else { throw BenchmarkFailure("not an SQL database") }
        guard let row = try await sql.select().columns("id", "name_sealed", "value_sealed", "version", "updated_at").from("vt_records")
            .where("id", .equal, rowID).first(decoding: Row.self), row.value_sealed != nil
        else { throw BenchmarkFailure("the record is missing") }
    }

    func shutdown() async { try? await app.asyncShutdown() }

    private struct Row: Decodable {
        let id: String
        let name_sealed: String
        let value_sealed: String?
        let version: Int64
        let updated_at: Double
    }
}

/// A command the vault has no handler for: the whole E2E path (both ends' sealing, the bus, the vault's replay
/// window, an encrypted answer) without a handler or a database access. The answer is a small `unknown_command`
/// error instead of the 1 KB secret.
func noHandlerRequest(_ app: VaultConnection) async throws {
    do {
        _ = try await app.request("bench.no-handler")
        throw BenchmarkFailure("an unknown command succeeded")
    } catch VaultError.vault(let code, _) where code == "unknown_command" {}
}

/// `secrets.datastore.retrieve` of a key that does not exist: the handler and its SELECT (no row), answered with a
/// small `not_found` error: the retrieve without the 1 KB value (its unsealing, JSON and bytes on the bus).
func missingKeyRequest(_ app: VaultConnection) async throws {
    do {
        _ = try await app.secret("bench-missing")
        throw BenchmarkFailure("a missing secret was found")
    } catch VaultError.vault(let code, _) where code == "not_found" {}
}
