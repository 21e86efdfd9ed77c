import ArgumentParser
import Foundation
import HolderKit
import MDoc
import TesseraCBOR
import TesseraCore

/// `tessera wallet …`: the local test wallet (keys and credentials in a directory).
struct WalletCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet",
        abstract: "A local test wallet: add credentials, list them.",
        subcommands: [WalletAddMDL.self, WalletAddPID.self, WalletList.self, WalletPresent.self])
}

/// The wallet directory: `keys/` (FileKeyStore) and `credentials/` (DirectoryCredentialStore).
struct WalletDirectory {
    let url: URL
    var keys: FileKeyStore { FileKeyStore(directory: url.appendingPathComponent("keys")) }
    var credentials: DirectoryCredentialStore { DirectoryCredentialStore(directory: url.appendingPathComponent("credentials")) }

    /// The wallet's mdoc with `id`, or its first (oldest) mdoc.
    func mdoc(id: String? = nil) throws -> (CredentialRecord, StoredCredential) {
        let all = try credentials.records().filter { $0.format == CredentialRecord.mdocFormat }
        guard let record = id.map({ id in all.first { $0.id == id } }) ?? all.first else {
            if let id { throw UserFacingError("no mdoc \(id) in \(url.path)") }
            throw UserFacingError("the wallet \(url.path) holds no mdoc; run 'tessera wallet add-mdl' first")
        }
        return (record, try credentials.mdoc(record, keys: keys))
    }
}

struct WalletAddMDL: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-mdl",
        abstract: "Issue a test mDL into the wallet.",
        discussion: """
            Creates a device key in the wallet, and issues an mDL for it with the test issuer in --issuer-dir \
            (created on first use: IACA root and document signer). Verifiers trust that issuer with \
            --trust <issuer-dir>/iaca.pem. Default directories are under $TESSERA_HOME (~/.tessera).
            """)

    @Option(help: "Wallet directory (default: $TESSERA_HOME/wallet).")
    var wallet: String?

    @Option(name: .customLong("issuer-dir"), help: "Test issuer directory (default: $TESSERA_HOME/issuer).")
    var issuerDir: String?

    @Option(help: "Claims JSON ({namespace: {element: value}}); default: a sample mDL for Jane Doe.")
    var claims: String?

    @Option(help: "Validity in days.")
    var days = 365

    func run() async throws {
        let issuerDirectory = IssuerDirectory(url: TesseraHome.issuer(issuerDir))
        let signer = try issuerDirectory.documentSigner()
        if signer.created { print("created a test issuer in \(issuerDirectory.url.path)") }
        let wallet = WalletDirectory(url: TesseraHome.wallet(wallet))
        let nameSpaces = try claims.map { try CBORJSON.claims(try MDocFiles.read($0)) } ?? [MDL.namespace: SampleMDL.claims]
        let keyID = try wallet.keys.createDeviceKey()
        let deviceKey = try wallet.keys.deviceKey(id: keyID)
        let now = Date()
        let issuer = MDocIssuer(
            documentSignerKey: .p256(signer.key), certificateChain: signer.chain, clock: FixedClock(now),
            random: SystemRandomSource())
        let issued = try issuer.issue(
            docType: MDL.docType, nameSpaces: nameSpaces, deviceKey: deviceKey.publicKey,
            validUntil: now.addingTimeInterval(Double(days) * 86_400))
        let record = CredentialRecord(
            format: CredentialRecord.mdocFormat, id: DirectoryCredentialStore.newID(random: SystemRandomSource()),
            type: MDL.docType, keyID: keyID, data: try issued.encoded(), addedAt: now)
        try wallet.credentials.save(record)
        let count = nameSpaces.values.reduce(0) { $0 + $1.count }
        print("added mDL \(record.id) (\(count) elements) to \(wallet.url.path)")
        print("issuer root for verifiers: \(issuerDirectory.iacaPath)")
    }
}

struct WalletList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the wallet's credentials.")

    @Option(help: "Wallet directory (default: $TESSERA_HOME/wallet).")
    var wallet: String?

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let wallet = WalletDirectory(url: TesseraHome.wallet(wallet))
        let records = try wallet.credentials.records()
        if json {
            let list = records.map { ["id": $0.id, "format": $0.format, "type": $0.type, "added_at": ISO8601DateFormatter().string(from: $0.addedAt)] }
            print(try CBORJSON.serialize(list))
            return
        }
        if records.isEmpty { print("no credentials in \(wallet.url.path)") }
        for record in records { print("\(record.id)  \(record.format)  \(record.type)  added \(record.addedAt)") }
    }
}

/// The sample mDL of the demo and of `tessera wallet add-mdl`.
enum SampleMDL {
    static let claims: [String: CBOR] = [
        "family_name": "Doe", "given_name": "Jane", "birth_date": .tagged(CBORTag.fullDate, "1990-05-17"),
        "issue_date": .tagged(CBORTag.fullDate, "2024-01-01"), "expiry_date": .tagged(CBORTag.fullDate, "2030-01-01"),
        "issuing_country": "US", "issuing_authority": "Tessera Demo DMV", "document_number": "D1234567",
        "portrait": .bytes(Data([0xff, 0xd8, 0xff, 0xe0])), "age_over_18": true, "age_over_21": true,
        "un_distinguishing_sign": "USA",
        "driving_privileges": [["vehicle_category_code": "B", "issue_date": .tagged(CBORTag.fullDate, "2024-01-01")]],
    ]
}
