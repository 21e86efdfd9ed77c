// Ledger `POST /api/v1/auth/execute` per second per core, next to its floor measured in the same run.
//
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark --target LedgerBenchmarks
//
// Each benchmark process starts what it needs on loopback: a real LedgerServer (Vapor + Fluent, its own SQLite file
// in a temporary directory, WAL, synchronous=NORMAL, as `tessera ledger serve` runs it), no NATS. Rate limits are
// raised out of the way; everything else is the production configuration (20 transaction keys at enrollment, +10
// when <= 10 are left) except the KDF, set to m = 64 KiB, t = 1, p = 1: Argon2id runs on the device, never on the
// ledger, and is outside every measured part anyway (the device's hash is computed once, in setup).
//
// auth/execute (HTTP): a user enrolled through VaultClient (enroll/start, set-password, finalize). Not measured, per
// iteration: the device's part, i.e. the signed `POST /action/request` (action token, jti, use_key_id, LAT proof,
// which is checked), the password hash sealed to the UTK use_key_id with aad pw|user|jti|key_id, the body; and after
// the answer, the device taking the new credential package (blob, LAT, transaction keys). Measured: the
// `POST /auth/execute` with the Bearer action token, from the request until the whole 200 answer is read: HTTP,
// the token and the key consumed (two conditional UPDATEs), the password hash opened with the LTK, the blob opened
// with the CEK, the constant-time comparison, and the rotation in one transaction (a new CEK, the blob sealed to
// it, a new LAT, both sealed with the master key, user row UPDATE, CEK DELETE + INSERT, the unused keys read, and
// every 10th execute 10 new transaction keys generated, sealed and inserted). A user is used for 100 executes, then
// a fresh one is enrolled (not measured): a user's used transaction keys stay in lg_transaction_keys, so one user
// logging in thousands of times would measure the growth of that table (see "10 in a row" for the amortised cost).
//   "one at a time": one execute per iteration; its p50 is an execute without the key top-up.
//   "10 in a row": 10 consecutive executes of one user per iteration (exactly one key top-up among them), each
//     timed alone; custom metrics give the mean per execute, so the top-up is amortised as it is in service.
// "server CPU (μs)": process CPU time (all threads: event loops, Swift tasks, the SQLite thread pool) of the measured
//   part, minus the CPU time of the HTTP client's own event-loop thread, i.e. what the ledger spent; "per core" =
//   1e6 / server CPU. "client CPU (μs)" is that client thread's share, for reference.
//
// floors (same process layout, no HTTP):
//   crypto: what the issue calls the floor: two X25519 agreements, two HKDF-SHA256, two ChaCha20-Poly1305 opens:
//     `Seal.open` (LedgerProtocol, the ledger's own code) of a 32-byte password hash sealed to an LTK, and of a blob
//     of the ledger's shape ({user_guid, password_hash, kdf, policies} with the production KDF: 261 bytes) sealed
//     to a CEK, keys parsed once.
//   database writes: the writes of one successful execute without key top-up, as SQLKit statements run through
//     the path the ledger takes (InlineSQLite: statements on the caller's thread) on the ledger's own file (a second
//     InlineSQLite on it, WAL, synchronous=NORMAL):
//     UPDATE lg_action_tokens … RETURNING (token spent), UPDATE lg_transaction_keys … RETURNING (key spent), then
//     one transaction {UPDATE lg_users … WHERE cek_version = ? RETURNING id, DELETE FROM lg_ceks …, INSERT INTO
//     lg_ceks}. Not measured: inserting the token and key rows they consume. No reads (the service also reads the
//     user row, the CEK row and the unused keys: 3 SELECTs), no key top-up.
//   crypto + database writes: both, in one iteration, in the service's order.
//
// breakdown (where an execute's time goes beyond the floor; each measured alone, same layout):
//   database reads of one execute: the 3 SELECTs of the service (user row, CEK row, unused keys) on the same file.
//   all crypto of one execute: the floor's opens plus what the floor leaves out: the LTK and the CEK unsealed with
//     the master key, a new CEK key pair, the blob sealed to it (one more X25519 key pair and agreement, HKDF,
//     ChaCha20-Poly1305), a new LAT, the CEK and the LAT sealed with the master key, and the key top-up's share per
//     execute (one X25519 key pair and one master-key seal).
//   bare Vapor route: the same request (body, Bearer header) over the same client to a Vapor application whose
//     async route only parses the JSON body and answers a real execute answer (the credential package and the
//     keys, a few KB) serialized with the ledger's headers: HTTP + JSON, no database, no crypto.
//   Statements per successful execute in the service: 4 outside the transaction (token UPDATE, user SELECT, key
//   UPDATE, CEK SELECT), 4 inside the transaction (UPDATE user, DELETE + INSERT CEK, SELECT unused keys) plus BEGIN
//   and COMMIT, and every 10th execute 10 INSERTs of new keys: 11 statements on average; the writes floor runs 7
//   (5 + BEGIN/COMMIT).

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

private let serverCPU = BenchmarkMetric.custom("server CPU (μs)", polarity: .prefersSmaller, useScalingFactor: false)
private let clientCPU = BenchmarkMetric.custom("client CPU (μs)", polarity: .prefersSmaller, useScalingFactor: false)
private let processCPU = BenchmarkMetric.custom("CPU (μs)", polarity: .prefersSmaller, useScalingFactor: false)
private let perCore = BenchmarkMetric.custom("per s per core", polarity: .prefersLarger, useScalingFactor: false)
private let wallPerOperation = BenchmarkMetric.custom("wall μs/execute", polarity: .prefersSmaller, useScalingFactor: false)

private let password = "correct horse battery staple"

// MARK: - Ledger and device

/// The device side of one enrolled user, kept in memory between executes.
struct Device: Sendable {
    let userGUID: String
    let deviceKey: Curve25519.Signing.PrivateKey
    var lat: Data
    var latVersion: Int
    /// `{ciphertext, nonce, epk, cek_version}` as the ledger sent it.
    var blob: JSONObject
    var keys: [String: Curve25519.KeyAgreement.PublicKey]
    var executes = 0

    init(_ state: VaultState) throws {
        userGUID = state.userGUID
        deviceKey = try Curve25519.Signing.PrivateKey(rawRepresentation: try Base64URL.decode(state.devicePrivateKey))
        lat = try Base64URL.decode(state.latToken)
        latVersion = state.latVersion
        blob = [
            "ciphertext": .string(state.blob.ciphertext), "nonce": .string(state.blob.nonce), "epk": .string(state.blob.epk),
            "cek_version": .integer(Int64(state.blob.cekVersion)),
        ]
        keys = try Self.keys(state.transactionKeys.map { ($0.keyID, $0.publicKey) })
    }

    static func keys(_ pairs: [(String, String)]) throws -> [String: Curve25519.KeyAgreement.PublicKey] {
        var keys: [String: Curve25519.KeyAgreement.PublicKey] = [:]
        for (id, key) in pairs { keys[id] = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: try Base64URL.decode(key)) }
        return keys
    }

    /// The new state from an auth/execute answer (what VaultClient saves).
    mutating func take(_ answer: JSONObject, usedKeyID: String) throws {
        guard answer["used_key_id"]?.stringValue == usedKeyID, let package = answer["credential_package"]?.objectValue,
            package["user_guid"]?.stringValue == userGUID, let blob = package["blob"]?.objectValue,
            blob["cek_version"]?.int64Value != nil, let lat = package["lat"]?.objectValue,
            let token = lat["token"]?.stringValue, let version = lat["version"]?.int64Value,
            let keys = package["transaction_keys"]?.arrayValue
        else { throw BenchmarkFailure("the credential package is incomplete") }
        self.blob = blob
        self.lat = try Base64URL.decode(token)
        self.latVersion = Int(version)
        self.keys = try Self.keys(keys.compactMap { key in
            key["key_id"]?.stringValue.flatMap { id in key["public_key"]?.stringValue.map { (id, $0) } }
        })
        executes += 1
    }
}

/// One auth/execute ready to send.
struct PreparedExecute: Sendable {
    let token: String
    let keyID: String
    let body: Data
}

actor World {
    static let shared = World()
    static let executesPerUser = 100

    private var directory: URL?
    private(set) var ledger: LedgerServer?
    private var enrollHTTP: AsyncHTTPClientTransport?
    /// The HTTP client of the measured requests, on its own one-thread event loop so that its CPU time can be told
    /// apart from the ledger's.
    private let clientGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var client: HTTPClient?
    private(set) var clientThreadClock: clockid_t?
    private var passwordHash: Data?
    private(set) var device: Device?
    private var users = 0

    var databasePath: String? { directory?.appendingPathComponent("ledger.sqlite").path }

    func startLedger() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-ledger-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        var configuration = LedgerConfiguration(
            database: .sqlite(path: directory.appendingPathComponent("ledger.sqlite").path), directory: directory.appendingPathComponent("ledger"))
        configuration.kdfMemoryKiB = 64
        configuration.kdfIterations = 1
        configuration.kdfParallelism = 1
        configuration.perAddressPerMinute = 1 << 40
        configuration.perUserPerMinute = 1 << 40
        ledger = try await LedgerServer.start(configuration, port: 0)
        enrollHTTP = AsyncHTTPClientTransport()
        client = HTTPClient(eventLoopGroup: clientGroup)
        // The client's event-loop thread, and its CPU clock.
        let thread = try await clientGroup.next().submit { pthread_self() }.get()
        var clock = clockid_t()
        guard pthread_getcpuclockid(thread, &clock) == 0 else { throw BenchmarkFailure("no CPU clock for the client thread") }
        clientThreadClock = clock
        try await enroll()
    }

    /// A fresh user enrolled through VaultClient; the device's password hash computed once.
    func enroll() async throws {
        guard let ledger, let directory, let enrollHTTP else { throw BenchmarkFailure("no ledger") }
        users += 1
        let store = VaultStateStore(directory: directory.appendingPathComponent("device-\(users)"))
        let vault = VaultClient(store: store, http: enrollHTTP)
        let enrolled = try await vault.enroll(
            ledger: ledger.baseURL, invitation: try await ledger.invite(), password: password, deviceID: "bench-device-\(users)",
            deviceType: "linux")
        passwordHash = try enrolled.kdf.hash(password: password)
        device = try Device(try store.load())
    }

    /// The device's part of one login: the signed action request (LAT proof checked), the sealed password hash.
    func prepare() async throws -> PreparedExecute {
        if let device, device.executes >= Self.executesPerUser { try await enroll() }
        guard let ledger, let client, let device, let passwordHash else { throw BenchmarkFailure("no ledger") }
        let clientNonce = Base64URL.encode(SystemRandomSource().bytes(16))
        let body = ActionRequest(userGUID: device.userGUID, actionType: "authenticate", clientNonce: clientNonce, latVersion: device.latVersion)
            .json.serialized()
        let path = "/api/v1/action/request"
        let headers = try DeviceSignature.headers(
            key: device.deviceKey, method: "POST", path: path, timestamp: Int64(Date().timeIntervalSince1970),
            nonce: Base64URL.encode(SystemRandomSource().bytes(16)), body: body)
        let action = try await post(client, ledger.baseURL + path, body: body, headers: headers)
        guard let token = action["action_token"]?.stringValue, let jti = action["jti"]?.stringValue,
            let keyID = action["use_key_id"]?.stringValue, let proof = action["lat_proof"]?.stringValue,
            LATProof.check(try Base64URL.decode(proof), lat: device.lat, userGUID: device.userGUID, clientNonce: clientNonce, jti: jti),
            let utk = device.keys[keyID]
        else { throw BenchmarkFailure("action/request: \(action)") }
        let box = try Seal.seal(
            to: utk, info: .transactionEncryption, aad: LedgerAAD.password(userGUID: device.userGUID, transaction: jti, keyID: keyID),
            plaintext: passwordHash, random: SystemRandomSource())
        let execute: JSONObject = ["blob": .object(device.blob), "password": .object(box.json), "key_id": .string(keyID)]
        return PreparedExecute(token: token, keyID: keyID, body: execute.serialized())
    }

    /// The measured call: `POST /api/v1/auth/execute`, the whole answer read. Not isolated to the actor (nothing
    /// of the actor is touched), so the call is what the client and the ledger do, nothing more.
    nonisolated func execute(_ prepared: PreparedExecute, client: HTTPClient, baseURL: String) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: baseURL + "/api/v1/auth/execute")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Authorization", value: "Bearer \(prepared.token)")
        request.body = .bytes(ByteBuffer(bytes: prepared.body))
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else { throw BenchmarkFailure("auth/execute answered \(response.status): \(String(buffer: body))") }
        return body
    }

    var measured: (client: HTTPClient, baseURL: String, clientClock: clockid_t)? {
        guard let client, let ledger, let clientThreadClock else { return nil }
        return (client, ledger.baseURL, clientThreadClock)
    }

    /// The device takes the answer.
    func finish(_ answer: ByteBuffer, _ prepared: PreparedExecute) throws {
        guard let json = try JSONValue.parse(answer.readableBytesView).objectValue else { throw BenchmarkFailure("not an object") }
        try device?.take(json, usedKeyID: prepared.keyID)
    }

    /// Before anything is timed: one whole login, and the same action token refused the second time.
    func checkLogin() async throws {
        guard let measured else { throw BenchmarkFailure("no ledger") }
        let prepared = try await prepare()
        try finish(try await execute(prepared, client: measured.client, baseURL: measured.baseURL), prepared)
        do {
            _ = try await execute(prepared, client: measured.client, baseURL: measured.baseURL)
            throw BenchmarkFailure("a spent action token was accepted")
        } catch let error as BenchmarkFailure where error.description.contains("401") {}
    }

    private func post(_ client: HTTPClient, _ url: String, body: Data, headers: [(name: String, value: String)]) async throws -> JSONObject {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(request, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok, let json = try JSONValue.parse(answer.readableBytesView).objectValue else {
            throw BenchmarkFailure("\(url) answered \(response.status): \(String(buffer: answer))")
        }
        return json
    }

    private(set) var bare: (server: BareExecuteServer, request: PreparedExecute)?

    /// A real execute's request and answer, then the bare server answering that answer to that request.
    func startBare() async throws {
        try await startLedger()
        guard let measured else { throw BenchmarkFailure("no ledger") }
        let prepared = try await prepare()
        let answer = try await execute(prepared, client: measured.client, baseURL: measured.baseURL)
        guard let json = try JSONValue.parse(answer.readableBytesView).objectValue else { throw BenchmarkFailure("not an object") }
        bare = (try await BareExecuteServer.start(answer: json), prepared)
    }

    func shutdown() async {
        await bare?.server.shutdown()
        try? await client?.shutdown()
        try? await enrollHTTP?.shutdown()
        await ledger?.shutdown()
        await floorDatabase?.shutdown()
        try? await clientGroup.shutdownGracefully()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    // MARK: floor: database writes

    private(set) var floorDatabase: FloorDatabase?

    /// A ledger (for its schema and one enrolled user), then a second Fluent application on its SQLite file.
    func startFloorDatabase() async throws {
        try await startLedger()
        guard let databasePath, let device else { throw BenchmarkFailure("no ledger") }
        floorDatabase = try await FloorDatabase.open(path: databasePath, user: device.userGUID)
    }
}

/// The ledger's SQLite file opened a second time, through the same path, to run the writes of an execute.
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

// MARK: - Benchmarks

let benchmarks: @Sendable () -> Void = {
    let teardown: @Sendable () async throws -> Void = { await World.shared.shutdown() }
    let service = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, serverCPU, clientCPU, processCPU, perCore], timeUnits: .microseconds,
        warmupIterations: 20, maxDuration: .seconds(8), maxIterations: 3_000,
        setup: {
            try await World.shared.startLedger()
            try await World.shared.checkLogin()
        }, teardown: teardown)

    Benchmark("ledger: auth/execute (HTTP), one at a time", configuration: service) { benchmark in
        let world = World.shared
        guard let measured = await world.measured else { throw BenchmarkFailure("no ledger") }
        let (client, baseURL, clientClock) = measured
        let prepared = try await world.prepare()
        let (cpu, clientStart) = (processCPUMicroseconds(), cpuMicroseconds(of: clientClock))
        benchmark.startMeasurement()
        let answer = try await world.execute(prepared, client: client, baseURL: baseURL)
        benchmark.stopMeasurement()
        let (process, clientUsed) = (processCPUMicroseconds() - cpu, cpuMicroseconds(of: clientClock) - clientStart)
        benchmark.measurement(processCPU, process)
        benchmark.measurement(clientCPU, clientUsed)
        benchmark.measurement(serverCPU, process - clientUsed)
        benchmark.measurement(perCore, 1_000_000 / max(1, process - clientUsed))
        try await world.finish(answer, prepared)
    }

    let batch = 10
    Benchmark(
        "ledger: auth/execute (HTTP), 10 in a row, mean per execute",
        configuration: .init(
            metrics: [serverCPU, clientCPU, processCPU, perCore, wallPerOperation], warmupIterations: 2,
            maxDuration: .seconds(8), maxIterations: 300, setup: service.setup, teardown: teardown)
    ) { benchmark in
        let world = World.shared
        guard let measured = await world.measured else { throw BenchmarkFailure("no ledger") }
        let (client, baseURL, clientClock) = measured
        let clock = ContinuousClock()
        var (wall, process, clientUsed) = (Duration.zero, 0, 0)
        // Users change after 100 executes (setup's check counts as one), so top-ups fall on every 10th execute of the
        // run: any 10 consecutive executes include exactly one. Enrolling a new user happens in prepare(), not timed.
        for _ in 0..<batch {
            let prepared = try await world.prepare()
            let (cpu, clientStart, start) = (processCPUMicroseconds(), cpuMicroseconds(of: clientClock), clock.now)
            let answer = try await world.execute(prepared, client: client, baseURL: baseURL)
            wall += clock.now - start
            process += processCPUMicroseconds() - cpu
            clientUsed += cpuMicroseconds(of: clientClock) - clientStart
            try await world.finish(answer, prepared)
        }
        benchmark.measurement(wallPerOperation, Int((wall / batch) / .microseconds(1)))
        benchmark.measurement(processCPU, process / batch)
        benchmark.measurement(clientCPU, clientUsed / batch)
        benchmark.measurement(serverCPU, (process - clientUsed) / batch)
        benchmark.measurement(perCore, 1_000_000 * batch / max(1, process - clientUsed))
    }

    let floorMetrics: [BenchmarkMetric] = [.wallClock, .throughput, processCPU, perCore]
    let cryptoFloor: CryptoFloor
    do { cryptoFloor = try CryptoFloor() } catch { fatalError("LedgerBenchmarks: \(error)") }
    Benchmark(
        "floor: crypto (2 X25519 + 2 HKDF + 2 ChaCha20-Poly1305 opens)",
        configuration: .init(metrics: floorMetrics, timeUnits: .microseconds, warmupIterations: 100, maxDuration: .seconds(3), maxIterations: 50_000)
    ) { benchmark in
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try cryptoFloor.run()
        benchmark.stopMeasurement()
        let used = processCPUMicroseconds() - cpu
        benchmark.measurement(processCPU, used)
        benchmark.measurement(perCore, 1_000_000 / max(1, used))
    }

    let database = Benchmark.Configuration(
        metrics: floorMetrics, timeUnits: .microseconds, warmupIterations: 20, maxDuration: .seconds(5), maxIterations: 5_000,
        setup: { try await World.shared.startFloorDatabase() }, teardown: teardown)
    Benchmark("floor: database writes of one execute (2 UPDATE + tx{UPDATE, DELETE, INSERT})", configuration: database) { benchmark in
        guard let db = await World.shared.floorDatabase else { throw BenchmarkFailure("no database") }
        let (token, keyID) = try await db.seed()
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await db.writes(token: token, keyID: keyID)
        benchmark.stopMeasurement()
        let used = processCPUMicroseconds() - cpu
        benchmark.measurement(processCPU, used)
        benchmark.measurement(perCore, 1_000_000 / max(1, used))
    }
    Benchmark("breakdown: database reads of one execute (3 SELECT)", configuration: database) { benchmark in
        guard let db = await World.shared.floorDatabase else { throw BenchmarkFailure("no database") }
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await db.reads()
        benchmark.stopMeasurement()
        let used = processCPUMicroseconds() - cpu
        benchmark.measurement(processCPU, used)
        benchmark.measurement(perCore, 1_000_000 / max(1, used))
    }
    let fullCrypto: FullCrypto
    do { fullCrypto = try FullCrypto(floor: cryptoFloor) } catch { fatalError("LedgerBenchmarks: \(error)") }
    Benchmark(
        "breakdown: all crypto of one execute (floor + master key + rotation + top-up share)",
        configuration: .init(metrics: floorMetrics, timeUnits: .microseconds, warmupIterations: 100, maxDuration: .seconds(3), maxIterations: 50_000)
    ) { benchmark in
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try fullCrypto.run()
        benchmark.stopMeasurement()
        let used = processCPUMicroseconds() - cpu
        benchmark.measurement(processCPU, used)
        benchmark.measurement(perCore, 1_000_000 / max(1, used))
    }
    Benchmark(
        "breakdown: bare Vapor route, same request and answer (HTTP + JSON only)",
        configuration: .init(
            metrics: [.wallClock, .throughput, serverCPU, clientCPU, processCPU, perCore], timeUnits: .microseconds,
            warmupIterations: 50, maxDuration: .seconds(4), maxIterations: 20_000,
            setup: { try await World.shared.startBare() }, teardown: teardown)
    ) { benchmark in
        let world = World.shared
        guard let measured = await world.measured, let bare = await world.bare else { throw BenchmarkFailure("no server") }
        let (cpu, clientStart) = (processCPUMicroseconds(), cpuMicroseconds(of: measured.clientClock))
        benchmark.startMeasurement()
        _ = try await world.execute(bare.request, client: measured.client, baseURL: bare.server.baseURL)
        benchmark.stopMeasurement()
        let (process, clientUsed) = (processCPUMicroseconds() - cpu, cpuMicroseconds(of: measured.clientClock) - clientStart)
        benchmark.measurement(processCPU, process)
        benchmark.measurement(clientCPU, clientUsed)
        benchmark.measurement(serverCPU, process - clientUsed)
        benchmark.measurement(perCore, 1_000_000 / max(1, process - clientUsed))
    }

    Benchmark("floor: crypto + database writes", configuration: database) { benchmark in
        guard let db = await World.shared.floorDatabase else { throw BenchmarkFailure("no database") }
        let (token, keyID) = try await db.seed()
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await db.writes(token: token, keyID: keyID, between: cryptoFloor)
        benchmark.stopMeasurement()
        let used = processCPUMicroseconds() - cpu
        benchmark.measurement(processCPU, used)
        benchmark.measurement(perCore, 1_000_000 / max(1, used))
    }
}
