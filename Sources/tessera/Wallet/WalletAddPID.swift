import ArgumentParser
import Crypto
import Foundation
import HolderKit
import MDoc
import SDJWT
import TesseraCore
import TesseraJOSE
import TesseraTrust

/// `tessera wallet add-pid`: a PID-like SD-JWT VC (`urn:eudi:pid:1`) bound to a new wallet key.
struct WalletAddPID: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-pid",
        abstract: "Issue a test PID (SD-JWT VC, dc+sd-jwt) into the wallet.",
        discussion: """
            The test PID issuer in --issuer-dir (root.pem, issuer.pem, issuer.key.pem; created on first use) signs \
            an SD-JWT VC with x5c whose claims are all selectively disclosable, with cnf.jwk = a new wallet key. \
            Verifiers trust it with --trust <issuer-dir>/root.pem.
            """)

    @Option(help: "Wallet directory (default: $TESSERA_HOME/wallet).")
    var wallet: String?

    @Option(name: .customLong("issuer-dir"), help: "Test PID issuer directory (default: $TESSERA_HOME/pid-issuer).")
    var issuerDir: String?

    @Option(help: "Validity in days.")
    var days = 365

    func run() async throws {
        let directory = issuerDir.map { URL(fileURLWithPath: $0) } ?? TesseraHome.url.appendingPathComponent("pid-issuer")
        let (issuerKey, chain, created) = try Self.issuer(in: directory)
        if created { print("created a test PID issuer in \(directory.path)") }
        let walletDirectory = WalletDirectory(url: TesseraHome.wallet(wallet))
        let keyID = try walletDirectory.keys.createDeviceKey()
        guard let deviceKey = try walletDirectory.keys.deviceKey(id: keyID) as? SoftwareDeviceKey else {
            throw UserFacingError("the wallet key store returned no exportable public key")
        }
        let now = Date()
        let credential = try SDJWTIssuer(
            signingKey: .es256(issuerKey), clock: FixedClock(now), random: SystemRandomSource(), decoyDigests: 1...3
        ).issueVC(
            vct: DemoSDJWT.vct, claims: DemoSDJWT.claims, disclosable: try DemoSDJWT.disclosable,
            holderKey: JWSSigningKey.es256(deviceKey.signingKey).publicJWK, issuer: "https://issuer.example.com",
            validity: Double(days) * 86_400, x5c: chain)
        let record = CredentialRecord(
            format: CredentialRecord.sdJWTFormat, id: DirectoryCredentialStore.newID(random: SystemRandomSource()),
            type: DemoSDJWT.vct, keyID: keyID, data: Data(credential.compact.utf8), addedAt: now)
        try walletDirectory.credentials.save(record)
        print("added PID \(record.id) (\(credential.disclosures.count) Disclosures) to \(walletDirectory.url.path)")
        print("issuer root for verifiers: \(directory.appendingPathComponent("root.pem").path)")
    }

    /// The PID issuer's key and x5c chain (leaf only, DER), creating root and issuer on first use.
    static func issuer(in directory: URL) throws -> (P256.Signing.PrivateKey, [Data], created: Bool) {
        let pki = try TestPKIDirectory(url: directory, leafName: "issuer").loadOrCreate(
            rootCommonName: "Tessera Test PID Root", leafCommonName: "Tessera Test PID Issuer")
        return (pki.key, pki.chain, pki.created)
    }
}
