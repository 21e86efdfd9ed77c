import Crypto
import Foundation
import TesseraTestSupport
import HolderKit
import Ledger
import LedgerProtocol
import OpenID4VP
import ServiceSupport
import TesseraJOSE
import VaultClient

struct LedgerFixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum LedgerDatabases {
    static var all: [String] {
        var names = ["sqlite"]
        if let url = ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"], !url.isEmpty { names.append("postgres") }
        return names
    }

    /// Fluent's migrations cannot run twice at once on one fresh database, and the suites run in parallel: the first
    /// PostgreSQL user of a test run migrates (through `LedgerServer.invite`), the others wait for it.
    static let postgresMigrated = Task<Void, any Error> {
        guard let url = ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"], !url.isEmpty else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-ledger-migrate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = LedgerConfiguration(database: try ServiceDatabase(url: url), directory: directory)
        _ = try await SharedPostgres.serialized { try await LedgerServer.invite(configuration) }
    }
}

/// A ledger on loopback (SQLite in a temporary directory, or the test PostgreSQL) with a cheap KDF (the tests
/// exercise the protocol, not the cost), and vault clients using it.
struct LedgerFixture {
    static let password = "correct horse battery staple"
    let directory: URL
    let server: LedgerServer
    let http: AsyncHTTPClientTransport

    init(database: String = "sqlite", configure: (inout LedgerConfiguration) -> Void = { _ in }) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-ledger-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let db: ServiceDatabase
        if database == "postgres", let url = ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"] {
            try await LedgerDatabases.postgresMigrated.value
            db = try ServiceDatabase(url: url)
        } else {
            db = .sqlite(path: directory.appendingPathComponent("ledger.sqlite").path)
        }
        var configuration = LedgerConfiguration(database: db, directory: directory.appendingPathComponent("ledger"))
        configuration.kdfMemoryKiB = 256
        configuration.kdfIterations = 1
        configuration.kdfParallelism = 1
        configure(&configuration)
        server = try await LedgerServer.start(configuration, port: 0)
        http = AsyncHTTPClientTransport()
    }

    func shutdown() async {
        await server.shutdown()
        try? await http.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    func client(_ name: String = UUID().uuidString) -> VaultClient {
        VaultClient(store: VaultStateStore(directory: directory.appendingPathComponent("device-\(name)")), http: http)
    }

    /// An enrolled client.
    func enrolled(_ name: String = UUID().uuidString) async throws -> VaultClient {
        let client = client(name)
        _ = try await client.enroll(
            ledger: server.baseURL, invitation: try await server.invite(), password: Self.password, deviceID: "device-\(name)",
            deviceType: "linux")
        return client
    }

    struct Answer {
        let status: Int
        let body: Data
        var json: JSONObject? { (try? JSONValue.parse(body))?.objectValue }
        var error: String? { json?["error"]?.stringValue }
    }

    func post(_ path: String, _ body: Data, headers: [(name: String, value: String)] = []) async throws -> Answer {
        guard let url = URL(string: server.baseURL + path) else { throw LedgerFixtureError("bad path") }
        let response = try await http.send(HTTPRequest(
            method: .post, url: url, headers: [("Content-Type", "application/json")] + headers, body: body))
        return Answer(status: response.status, body: response.body)
    }

    /// A signed action request for `state`'s user; returns the answer and the client nonce.
    func actionRequest(_ state: VaultState, nonce: String = UUID().uuidString, timestamp: Date = Date(), tamper: Bool = false) async throws -> (Answer, String) {
        let request = try Self.signedActionRequest(state, nonce: nonce, timestamp: timestamp, tamper: tamper)
        return (try await post("/api/v1/action/request", request.body, headers: request.headers), request.clientNonce)
    }

    /// The body and device-signature headers of an action request for `state`'s user (to send to any ledger).
    static func signedActionRequest(_ state: VaultState, nonce: String = UUID().uuidString, timestamp: Date = Date(), tamper: Bool = false) throws
        -> (body: Data, headers: [(name: String, value: String)], clientNonce: String)
    {
        let clientNonce = UUID().uuidString
        let body = (["user_guid": .string(state.userGUID), "action_type": "authenticate", "client_nonce": .string(clientNonce)] as JSONObject).serialized()
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: try Base64URL.decode(state.devicePrivateKey))
        let headers = try DeviceSignature.headers(
            key: key, method: "POST", path: "/api/v1/action/request", timestamp: Int64(timestamp.timeIntervalSince1970), nonce: nonce,
            body: tamper ? body + Data(" ".utf8) : body)
        return (body, headers, clientNonce)
    }

    /// An auth/execute body for `state` with the password sealed for `jti` and `keyID` (or other values to test
    /// the bindings).
    func executeBody(
        _ state: VaultState, jti: String, keyID: String, sealKeyID: String? = nil, password: String = Self.password,
        aadUser: String? = nil, blob: VaultState.Blob? = nil, kdf: KDFParameters
    ) throws -> Data {
        try Self.executeBody(state, jti: jti, keyID: keyID, sealKeyID: sealKeyID, password: password, aadUser: aadUser, blob: blob, kdf: kdf)
    }

    /// `executeBody` without a fixture (to send to any ledger).
    static func executeBody(
        _ state: VaultState, jti: String, keyID: String, sealKeyID: String? = nil, password: String = Self.password,
        aadUser: String? = nil, blob: VaultState.Blob? = nil, kdf: KDFParameters
    ) throws -> Data {
        let utkID = sealKeyID ?? keyID
        guard let utk = state.transactionKeys.first(where: { $0.keyID == utkID }) else { throw LedgerFixtureError("no such key") }
        let key = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: try Base64URL.decode(utk.publicKey))
        let box = try Seal.seal(
            to: key, info: .transactionEncryption,
            aad: LedgerAAD.password(userGUID: aadUser ?? state.userGUID, transaction: jti, keyID: keyID),
            plaintext: try kdf.hash(password: password), random: SystemRandomSource())
        let b = blob ?? state.blob
        let blobJSON: JSONObject = [
            "ciphertext": .string(b.ciphertext), "nonce": .string(b.nonce), "epk": .string(b.epk), "cek_version": .integer(Int64(b.cekVersion)),
        ]
        return (["blob": .object(blobJSON), "password": .object(box.json), "key_id": .string(keyID)] as JSONObject).serialized()
    }
}

import TesseraCore
import TesseraHTTP
import HTTPTransport
