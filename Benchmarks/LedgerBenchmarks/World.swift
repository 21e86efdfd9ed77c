// The ledger and the device side the auth/execute benchmarks drive: a LedgerServer in this process, a user enrolled
// through VaultClient, and the device's part of each login.

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
        return try await Self.prepare(device, passwordHash: passwordHash, client: client, baseURL: ledger.baseURL)
    }

    /// `device`'s signed `POST /action/request` to the ledger at `baseURL` (its LAT proof checked), and the
    /// auth/execute that follows it ready to send: `passwordHash` sealed to the transaction key the ledger chose.
    static func prepare(_ device: Device, passwordHash: Data, client: HTTPClient, baseURL: String) async throws -> PreparedExecute {
        let clientNonce = Base64URL.encode(SystemRandomSource().bytes(16))
        let body = ActionRequest(userGUID: device.userGUID, actionType: "authenticate", clientNonce: clientNonce, latVersion: device.latVersion)
            .json.serialized()
        let path = "/api/v1/action/request"
        let headers = try DeviceSignature.headers(
            key: device.deviceKey, method: "POST", path: path, timestamp: Int64(Date().timeIntervalSince1970),
            nonce: Base64URL.encode(SystemRandomSource().bytes(16)), body: body)
        let action = try await post(client, baseURL + path, body: body, headers: headers)
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
        try await Self.execute(prepared, client: client, baseURL: baseURL)
    }

    static func execute(_ prepared: PreparedExecute, client: HTTPClient, baseURL: String) async throws -> ByteBuffer {
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

    private static func post(_ client: HTTPClient, _ url: String, body: Data, headers: [(name: String, value: String)]) async throws -> JSONObject {
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

    /// Both sides of the pairs: a ledger whose first user is the floor's (its rows rotated by the floor's writes, on
    /// the file opened a second time) and whose second user logs in through the ledger, one login checked.
    func startPairs() async throws {
        try await startFloorDatabase()
        try await enroll()
        try await checkLogin()
    }
}

/// The ledger's SQLite file opened a second time, through the same path, to run the writes of an execute.
