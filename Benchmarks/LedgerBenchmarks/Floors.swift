// The floors of an auth/execute (its database writes and its crypto) and the breakdown's pieces (all of its crypto,
// a bare Vapor route answering the same request).

import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import Crypto
import Fluent
import FluentSQLiteDriver
import Foundation
import HolderKit
import Ledger
import LedgerProtocol
import ServiceSupport
import TesseraCore
import TesseraJOSE
import VaultClient
import Vapor
import HTTPTransport

#if canImport(Glibc)
    import Glibc
#endif

actor FloorDatabase {
    private let inline: InlineSQLite
    private let user: String
    private var cekVersion: Int
    private var latVersion: Int

    private init(inline: InlineSQLite, user: String, cekVersion: Int, latVersion: Int) {
        self.inline = inline
        self.user = user
        self.cekVersion = cekVersion
        self.latVersion = latVersion
    }

    static func open(path: String, user: String) async throws -> FloorDatabase {
        var logger = Logger(label: "ledger-floor")
        logger.logLevel = .warning
        let inline = try InlineSQLite(path: path, eventLoop: MultiThreadedEventLoopGroup.singleton.any(), logger: logger)
        guard let row = try await inline.sql.select().columns("cek_version", "lat_version").from("lg_users").where("id", .equal, user).first()
        else { throw BenchmarkFailure("the enrolled user is not in \(path)") }
        return FloorDatabase(
            inline: inline, user: user, cekVersion: try row.decode(column: "cek_version", as: Int.self),
            latVersion: try row.decode(column: "lat_version", as: Int.self))
    }

    private var sql: any SQLDatabase { inline.sql }

    private static func hashID(_ secret: String) -> String { Base64URL.encode(SHA256.hash(data: Data(secret.utf8))) }
    private static func sealedText() -> String { Base64URL.encode(SystemRandomSource().bytes(32 + 12 + 16)) }

    /// Not measured: an unused action token and an unused transaction key, as action/request and the last top-up
    /// left them. Returns the token and the key id.
    func seed() async throws -> (token: String, keyID: String) {
        let (token, keyID) = (Base64URL.encode(SystemRandomSource().bytes(32)), Base64URL.encode(SystemRandomSource().bytes(16)))
        let now = Date().timeIntervalSince1970
        let sql = try self.sql
        try await sql.insert(into: "lg_action_tokens").columns("id", "jti", "user_guid", "scope", "use_key_id", "expires_at", "used")
            .values(SQLBind(Self.hashID(token)), SQLBind(Base64URL.encode(SystemRandomSource().bytes(16))), SQLBind(user),
                    SQLBind("authenticate"), SQLBind(keyID), SQLBind(now + 300), SQLBind(false)).run()
        try await sql.insert(into: "lg_transaction_keys")
            .columns("id", "user_guid", "public_key", "private_sealed", "used", "created_at")
            .values(SQLBind(keyID), SQLBind(user), SQLBind(Base64URL.encode(SystemRandomSource().bytes(32))), SQLBind(Self.sealedText()),
                    SQLBind(false), SQLBind(now)).run()
        return (token, keyID)
    }

    /// Measured: the statements of a successful execute that write (same SQL as LedgerStore and CredentialIssuer).
    /// With `floor`, its two opens run between the key UPDATE and the rotation, where the service opens the boxes.
    func writes(token: String, keyID: String, between floor: CryptoFloor? = nil) async throws {
        let sql = try self.sql
        let now = Date().timeIntervalSince1970
        guard try await sql.update("lg_action_tokens").set("used", to: SQLBind(true))
            .where("id", .equal, Self.hashID(token)).where("used", .equal, SQLBind(false)).where("expires_at", .greaterThan, now)
            .returning("jti", "user_guid", "scope", "use_key_id").first() != nil
        else { throw BenchmarkFailure("the token was not spent") }
        guard try await sql.update("lg_transaction_keys").set("used", to: SQLBind(true))
            .where("id", .equal, keyID).where("user_guid", .equal, user).where("used", .equal, SQLBind(false))
            .returning("private_sealed").first() != nil
        else { throw BenchmarkFailure("the key was not spent") }
        try floor?.run()
        let (user, current, kept, latVersion) = (user, cekVersion, cekVersion, latVersion)
        let (cekID, cekSealed, latSealed, latID) = ("\(user)|\(current + 1)", Self.sealedText(), Self.sealedText(), Base64URL.encode(SystemRandomSource().bytes(16)))
        try await inline.transaction { sql in
            guard try await sql.update("lg_users")
                .set("enrolled", to: SQLBind(true)).set("credential_id", to: SQLBind("bench-credential"))
                .set("cek_version", to: SQLBind(current + 1)).set("lat_id", to: SQLBind(latID))
                .set("lat_version", to: SQLBind(latVersion + 1)).set("lat_sealed", to: SQLBind(latSealed))
                .set("lat_previous_version", to: SQLBind(latVersion)).set("lat_previous_sealed", to: SQLBind(latSealed))
                .set("failed_attempts", to: SQLBind(0)).set("locked_until", to: SQLBind(0.0))
                .where("id", .equal, user).where("cek_version", .equal, SQLBind(current))
                .returning("id").first() != nil
            else { throw BenchmarkFailure("the user row was not rotated") }
            try await sql.delete(from: "lg_ceks").where("user_guid", .equal, user).where("version", .notEqual, SQLBind(kept)).run()
            try await sql.insert(into: "lg_ceks").columns("id", "user_guid", "version", "private_sealed")
                .values(SQLBind(cekID), SQLBind(user), SQLBind(current + 1), SQLBind(cekSealed)).run()
        }
        cekVersion += 1
        self.latVersion += 1
    }

    /// The reads of an execute (LedgerStore.user, .cek, .unusedKeys): the user row, its CEK row, its unused keys.
    func reads() async throws {
        let sql = try self.sql
        guard try await sql.select().columns("*").from("lg_users").where("id", .equal, user).first() != nil,
            try await sql.select().column("private_sealed").from("lg_ceks").where("id", .equal, "\(user)|\(cekVersion)").first() != nil
        else { throw BenchmarkFailure("the user or its CEK is missing") }
        let keys = try await sql.select().columns("id", "public_key").from("lg_transaction_keys")
            .where("user_guid", .equal, user).where("used", .equal, SQLBind(false))
            .orderBy("created_at").orderBy("id").all()
        guard !keys.isEmpty else { throw BenchmarkFailure("the user has no unused key") }
    }

    func shutdown() async { inline.close() }
}

// MARK: - Floor: crypto

/// The two opens of an execute, on boxes of the real sizes, with the keys already parsed.
struct CryptoFloor: Sendable {
    let ltk: Curve25519.KeyAgreement.PrivateKey
    let cek: Curve25519.KeyAgreement.PrivateKey
    let passwordBox: SealedBox
    let passwordAAD: Data
    let blobBox: SealedBox
    let blobAAD: Data

    init() throws {
        let random = SystemRandomSource()
        ltk = Curve25519.KeyAgreement.PrivateKey()
        cek = Curve25519.KeyAgreement.PrivateKey()
        let user = UUID().uuidString.lowercased()  // a user_guid, as enroll/start makes it
        passwordAAD = LedgerAAD.password(userGUID: user, transaction: Base64URL.encode(random.bytes(16)), keyID: Base64URL.encode(random.bytes(16)))
        passwordBox = try Seal.seal(to: ltk.publicKey, info: .transactionEncryption, aad: passwordAAD, plaintext: random.bytes(32), random: random)
        let kdf = KDFParameters(salt: random.bytes(16))
        let blob: JSONObject = [
            "user_guid": .string(user), "password_hash": .string(Base64URL.encode(random.bytes(32))), "kdf": .object(kdf.json),
            "policies": ["max_failures": 5, "lockout_seconds": 900],
        ]
        blobAAD = LedgerAAD.blob(userGUID: user, cekVersion: 2)
        blobBox = try Seal.seal(to: cek.publicKey, info: .credentialEncryption, aad: blobAAD, plaintext: blob.serialized(), random: random)
    }

    func run() throws {
        let hash = try Seal.open(passwordBox, with: ltk, info: .transactionEncryption, aad: passwordAAD)
        let blob = try Seal.open(blobBox, with: cek, info: .credentialEncryption, aad: blobAAD)
        guard hash.count == 32, !blob.isEmpty else { throw BenchmarkFailure("an open gave nothing") }
    }
}

/// Every cryptographic operation of one successful execute, as the ledger does them (not a floor: for the breakdown).
/// The two opens of the floor; the LTK and the CEK unsealed with the master key (ChaCha20-Poly1305, purpose|id as
/// AAD, as MasterKey does); the rotation: a new CEK key pair, the blob sealed to it (ephemeral X25519 key pair,
/// agreement, HKDF, ChaCha20-Poly1305), a new 32-byte LAT, the CEK and the LAT sealed with the master key; and the
/// top-up's share: every 10th execute makes 10 transaction key pairs and seals each, so one per execute.
struct FullCrypto: Sendable {
    let floor: CryptoFloor
    let master = SymmetricKey(size: .bits256)
    let sealedLTK: Data
    let sealedCEK: Data
    let blobPlaintext: Data

    init(floor: CryptoFloor) throws {
        self.floor = floor
        sealedLTK = try ChaChaPoly.seal(floor.ltk.rawRepresentation, using: master, authenticating: Data("ltk|key".utf8)).combined
        sealedCEK = try ChaChaPoly.seal(floor.cek.rawRepresentation, using: master, authenticating: Data("cek|user|2".utf8)).combined
        blobPlaintext = try Seal.open(floor.blobBox, with: floor.cek, info: .credentialEncryption, aad: floor.blobAAD)
    }

    func run() throws {
        let random = SystemRandomSource()
        let ltk = try Curve25519.KeyAgreement.PrivateKey(
            rawRepresentation: try ChaChaPoly.open(try ChaChaPoly.SealedBox(combined: sealedLTK), using: master, authenticating: Data("ltk|key".utf8)))
        let cek = try Curve25519.KeyAgreement.PrivateKey(
            rawRepresentation: try ChaChaPoly.open(try ChaChaPoly.SealedBox(combined: sealedCEK), using: master, authenticating: Data("cek|user|2".utf8)))
        _ = try Seal.open(floor.passwordBox, with: ltk, info: .transactionEncryption, aad: floor.passwordAAD)
        _ = try Seal.open(floor.blobBox, with: cek, info: .credentialEncryption, aad: floor.blobAAD)
        let newCEK = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: random.bytes(32))
        let blob = try Seal.seal(to: newCEK.publicKey, info: .credentialEncryption, aad: floor.blobAAD, plaintext: blobPlaintext, random: random)
        let lat = random.bytes(32)
        let sealed = [
            try ChaChaPoly.seal(newCEK.rawRepresentation, using: master, authenticating: Data("cek|user|3".utf8)).combined,
            try ChaChaPoly.seal(lat, using: master, authenticating: Data("lat|user".utf8)).combined,
        ]
        let topUp = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: random.bytes(32))
        let topUpSealed = try ChaChaPoly.seal(topUp.rawRepresentation, using: master, authenticating: Data("ltk|new".utf8)).combined
        blackHole((blob, sealed, topUp.publicKey.rawRepresentation, topUpSealed))
    }
}

// MARK: - Bare HTTP

/// A Vapor application on loopback with one async route that does what the ledger's route does around the service
/// and nothing else: the JSON body parsed (TesseraJOSE, as JSONBody.object), the Bearer header read, and a JSON
/// answer serialized (a real auth/execute answer, kept in setup) with the ledger's headers. No database, no crypto.
struct BareExecuteServer: Sendable {
    let app: Application
    let baseURL: String

    static func start(answer: JSONObject) async throws -> BareExecuteServer {
        let app = try await Application.make(Environment(name: "production", arguments: ["bare-execute"]))
        app.logger.logLevel = .warning
        app.middleware = Middlewares()
        app.post("api", "v1", "auth", "execute") { request async throws -> Response in
            guard let value = request.headers.first(name: .authorization), value.lowercased().hasPrefix("bearer "),
                request.headers.contentType?.subType == "json", let buffer = request.body.data,
                (try? JSONValue.parse(buffer.readableBytesView))?.objectValue?["key_id"] != nil
            else { throw Abort(.badRequest) }
            var headers = HTTPHeaders()
            headers.contentType = .json
            headers.add(name: .cacheControl, value: "no-store")
            return Response(status: .ok, headers: headers, body: .init(data: answer.serialized()))
        }
        try await app.asyncBoot()
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        guard let port = app.http.server.shared.localAddress?.port else { throw BenchmarkFailure("no bound port") }
        return BareExecuteServer(app: app, baseURL: "http://127.0.0.1:\(port)")
    }

    func shutdown() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }
}
