import Foundation
import Ledger
import LedgerProtocol
import ServiceSupport
import TesseraJOSE
import VaultClient
import TesseraCore

/// The personal-vault part of `tessera demo`: a ledger in process on loopback (SQLite in a temporary directory),
/// an invitation, enrollment and two logins of a device, each step shown, then a ledger that cannot prove the LAT.
enum DemoLedger {
    static func run() async throws {
        print("== Personal vault: enrollment and password authentication at an in-process ledger ==")
        let fm = FileManager.default
        let home = fm.temporaryDirectory.appendingPathComponent("tessera-demo-ledger-\(UUID().uuidString.prefix(8))")
        defer { try? fm.removeItem(at: home) }
        var configuration = LedgerConfiguration(
            database: .sqlite(path: home.appendingPathComponent("ledger.sqlite").path), directory: home.appendingPathComponent("ledger"))
        try fm.createDirectory(at: home, withIntermediateDirectories: true)
        // A demo cost: `swift run` builds for debugging, where the m = 64 MiB, t = 3, p = 4 takes seconds.
        configuration.kdfMemoryKiB = 19_456
        configuration.kdfIterations = 2
        configuration.kdfParallelism = 1
        let server = try await LedgerServer.start(configuration, port: 0)
        do {
            try await walkThrough(server: server, home: home)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    private static func walkThrough(server: LedgerServer, home: URL) async throws {
        print("ledger: \(server.baseURL) (private keys and LATs sealed at rest with ledger-master.key, 0600)")
        let invitation = try await server.invite()
        print("invitation code: \(invitation) (single use)")
        let client = VaultClient(store: VaultStateStore(directory: home.appendingPathComponent("device")), http: SharedHTTP.client)
        let password = "tessera demo vault password"
        let enrolled = try await client.enroll(
            ledger: server.baseURL, invitation: invitation, password: password, deviceID: "demo-device", deviceType: "cli")
        let kdf = enrolled.kdf
        print("enrolled: user \(enrolled.userGUID)")
        print("  Argon2id on the device (m=\(kdf.memoryKiB) KiB, t=\(kdf.iterations), p=\(kdf.parallelism), per-user salt kept by the ledger)")
        print("  the hash sealed to transaction key 1 of 20 (X25519 + HKDF + ChaCha20-Poly1305, AAD pw|user|session|key)")
        var state = try client.store.load()
        print("  device keeps: the credential blob (CEK v\(state.blob.cekVersion), it cannot open it), LAT v\(state.latVersion), \(state.transactionKeys.count) transaction keys")
        for round in 1...2 {
            let result = try await client.authenticate(password: password)
            print("login \(round): LAT proof checked in constant time before sending anything; key \(result.usedKeyID) spent;")
            print("  rotated to CEK v\(result.cekVersion), LAT v\(result.latVersion); \(result.transactionKeys) transaction keys left")
        }
        do {
            _ = try await client.authenticate(password: "not the password")
        } catch VaultError.ledger(let status, let error, _) {
            print("wrong password: \(status) \(error) (5 in a row lock the account for 15 minutes)")
        }
        state = try client.store.load()
        var phished = state
        phished.latToken = Base64URL.encode(Data(repeating: 0, count: 32))
        try client.store.save(phished)
        do {
            _ = try await client.authenticate(password: password)
        } catch VaultError.latMismatch {
            print("a ledger that cannot prove the LAT: refused by the device, no password hash sent")
        }
        try client.store.save(state)
    }
}
