// The verifier service's floor as a service: what any service answering direct_post.jwt responses must do, and
// nothing else. Same start-up as `tessera verifier serve` (ServiceApplication: Vapor on SwiftNIO, SQLite in WAL
// mode with synchronous=NORMAL reached as the services reach it, through `ServiceSQL` (InlineSQLite: statements on
// the request's thread), Swift Concurrency on the event loops), and per POST /response/:id:
//   collect the form body, read the state's row (the decryption key) with one SELECT, run the per-response crypto
//   floor (P-256 ECDH + SHA-256 KDF + AES-GCM open of 1.5 KB + two ES256 verifies), write the verdict with one
//   conditional UPDATE, answer a small JSON object.
// VerifierServiceBenchmarks runs it pinned to one core like the service and divides the two CPU costs: the gap
// between the verifier and this is what Tessera's own code (JWE and form parsing, SD-JWT and x5c verification,
// DCQL, the result) costs; the gap between this and the crypto floor is the HTTP stack's and the database's.
//
//   ServiceFloor DATABASE_FILE [--fluent]   prints "bound http://127.0.0.1:PORT", serves until killed. With
//   --fluent the statements go through Fluent's SQLite driver instead (a thread-pool hop per statement): the
//   floor as it was before issue 29, for comparison.

import Crypto
import Fluent
import Foundation
import SQLKit
import ServiceSupport
import Vapor

struct FloorError: Error, CustomStringConvertible {
    let description: String
}

/// The crypto floor's fixed inputs (the benchmark's floor row uses the same sizes).
struct FloorCrypto: Sendable {
    let recipient = P256.KeyAgreement.PrivateKey()
    let ephemeral = P256.KeyAgreement.PrivateKey().publicKey
    let gcmKey = SymmetricKey(size: .bits256)
    let signer = P256.Signing.PrivateKey()
    let sealed: AES.GCM.SealedBox
    let issuerInput = Data(repeating: 0x2E, count: 900)
    let kbInput = Data(repeating: 0x2E, count: 250)
    let issuerSignature: P256.Signing.ECDSASignature
    let kbSignature: P256.Signing.ECDSASignature

    init() throws {
        sealed = try AES.GCM.seal(Data(repeating: 0x41, count: 1536), using: gcmKey)
        issuerSignature = try signer.signature(for: issuerInput)
        kbSignature = try signer.signature(for: kbInput)
    }

    func run() throws -> Bool {
        let secret = try recipient.sharedSecretFromKeyAgreement(with: ephemeral)
        let derived = secret.withUnsafeBytes { SHA256.hash(data: Data([0, 0, 0, 1]) + Data($0)) }
        let opened = try AES.GCM.open(sealed, using: gcmKey)
        return !opened.isEmpty && derived.withUnsafeBytes { $0.count } == 32
            && signer.publicKey.isValidSignature(issuerSignature, for: issuerInput)
            && signer.publicKey.isValidSignature(kbSignature, for: kbInput)
    }
}

struct CreateFloorTable: AsyncMigration {
    func prepare(on database: any Database) async throws {
        guard let sql = database as? any SQLDatabase else { throw FloorError(description: "no SQL database") }
        try await sql.raw("CREATE TABLE states (id TEXT PRIMARY KEY, encryption_key BLOB, status TEXT, verdict TEXT)").run()
        try await sql.raw("""
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 4095)
            INSERT INTO states SELECT 's' || i, randomblob(32), 'pending', NULL FROM n
            """).run()
    }

    func revert(on database: any Database) async throws {}
}

@main
enum ServiceFloor {
    static func main() async throws {
        EventLoopExecutor.adopt()
        try await serve()
    }

    /// Off the main actor (where `main` runs), so the route closures are not sent across actors.
    nonisolated static func serve() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count == 1 || (arguments.count == 2 && arguments.last == "--fluent") else {
            throw FloorError(description: "usage: ServiceFloor DATABASE_FILE [--fluent]")
        }
        let fluent = arguments.count == 2
        let crypto = try FloorCrypto()
        let started = try await ServiceApplication.start(
            name: "service-floor", database: .sqlite(path: CommandLine.arguments[1]), migrations: [CreateFloorTable()],
            host: "127.0.0.1", port: 0
        ) { app in
            app.on(.POST, "response", ":id", body: .collect(maxSize: "64kb")) { request async throws -> Response in
                guard let id = request.parameters.get("id"), let body = request.body.data, body.readableBytes > 0,
                    let sql = fluent ? request.db as? any SQLDatabase : try? ServiceSQL(request.application).sql
                else { throw Abort(.badRequest) }
                guard try await sql.raw("SELECT encryption_key FROM states WHERE id = \(bind: id)").first() != nil else {
                    throw Abort(.notFound)
                }
                guard try crypto.run() else { throw Abort(.internalServerError) }
                // Every iteration posts to the same 4,096 states, so the write is unconditional on status.
                _ = try await sql.raw("UPDATE states SET status = 'completed', verdict = \(bind: "valid") WHERE id = \(bind: id) RETURNING id").first()
                var headers = HTTPHeaders()
                headers.contentType = .json
                return Response(status: .ok, headers: headers, body: .init(string: #"{"redirect_uri":"https://verifier.example/done"}"#))
            }
        }
        FileHandle.standardOutput.write(Data("bound http://127.0.0.1:\(started.port)\n".utf8))
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
