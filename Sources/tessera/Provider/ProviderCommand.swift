import Argon2
import ArgumentParser
import Crypto
import DeviceAttestation
import Foundation
import ServiceSupport
import WalletProvider
import X509
import DeviceAttestationTesting

/// `tessera provider …`: the IT-Wallet Wallet Provider.
struct ProviderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "provider", abstract: "IT-Wallet Wallet Provider.", subcommands: [ProviderServe.self, ProviderMigrate.self])
}

/// `tessera provider serve`.
struct ProviderServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Wallet Provider (federation metadata, nonce, registration, Wallet Attestations, accounts).",
        discussion: """
            Rows are kept in SQLite ($TESSERA_HOME/provider/provider.sqlite, WAL) unless --database or DATABASE_URL \
            names another (sqlite://PATH or postgres://…). The federation key (it signs the Entity Configuration) is \
            $TESSERA_HOME/provider/provider-key.pem (0600, created on first start); attestations are signed with \
            --signing-cert/--signing-key. Apple App Attest and Android key attestations are checked against Apple's \
            and Google's roots; --trust-test-attestation-root adds the test root of `tessera wallet-instance` (Linux \
            test integrity service) — never in production.
            """)

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free one).") var port = 8090
    @Option(help: "Database URL (default: $DATABASE_URL, else SQLite under $TESSERA_HOME/provider).") var database: String?
    @Option(name: .customLong("base-url"), help: "The entity identifier and base URL (default: http://HOST:PORT).") var baseURL: String?
    @Option(help: "Provider directory (default: $TESSERA_HOME/provider).") var directory: String?
    @Option(name: .customLong("trust-test-attestation-root"), help: "PEM of a test attestation root to trust (tests and demos only).")
    var testRoot: String?
    @Option(name: .customLong("apple-app"), help: "An App Attest app TEAMID.BUNDLEID that may register (repeatable).")
    var appleApps: [String] = []
    @Option(name: .customLong("android-app"), help: "An Android app PACKAGE:SHA256HEX (signing certificate digest) that may register (repeatable).")
    var androidApps: [String] = []
    @Option(name: .customLong("authority-hint"), help: "A federation superior (repeatable).") var authorityHints: [String] = []
    @Option(name: .customLong("password-cost"), help: "Argon2id cost of account passwords as m=KIB,t=ITERATIONS,p=LANES (default m=65536,t=3,p=4, RFC 9106 §4).")
    var passwordCost: String?
    @Flag(name: .customLong("allow-app-attest-development"), help: "Accept App Attest keys of the development environment.")
    var allowDevelopment = false
    @Option(name: .customLong("signing-cert"), help: "Certificate chain (PEM, leaf first) of the attestation and status list signing key (default: a test chain in the provider directory).")
    var signingCert: String?
    @Option(name: .customLong("signing-key"), help: "The signing key (PEM) --signing-cert certifies.")
    var signingKey: String?
    @Option(name: .customLong("trust-chain-statement"), help: "A file holding a superior's statement about this provider, or the trust anchor's Entity Configuration, for the attestations' trust_chain header (repeatable, in chain order).")
    var trustChainStatements: [String] = []
    @Option(name: .customLong("pdnd-trust"), help: "PEM certificates (x5c anchors) or a JWK / JWK Set trusted to sign the PDND voucher and Agid-JWT-Signature of the PID Provider's Notify User Death call (repeatable; none: the call is refused).")
    var pdndTrust: [String] = []
    @OptionGroup var https: ServeTLSOptions
    @OptionGroup var migration: MigrationOptions

    func run() async throws {
        ServiceLogging.bootstrapJSON()
        let directory = directory.map { URL(fileURLWithPath: $0) } ?? TesseraHome.url.appendingPathComponent("provider")
        var configuration = try ProviderSetup.configuration(
            directory: directory, database: database, baseURL: baseURL, testRoot: testRoot, appleApps: appleApps,
            androidApps: androidApps, authorityHints: authorityHints, allowDevelopment: allowDevelopment,
            signing: .init(certificate: signingCert, key: signingKey, trustChainStatements: trustChainStatements),
            pdndTrust: pdndTrust)
        configuration.migration = migration.policy(for: configuration.database)
        let cost = try passwordCost.map(ProviderSetup.parseArgon2Cost) ?? .rfc9106LowMemory
        let server: WalletProviderServer
        do {
            server = try await WalletProviderServer.start(configuration, host: host, port: port, passwordParameters: cost, tls: https.tls)
        } catch {
            throw UserFacingError(error.description)
        }
        FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))
        await ServiceTermination.run { await server.shutdown() }
    }
}

/// Builds the provider's configuration from the command line (shared with the demo).
enum ProviderSetup {
    /// `--signing-cert`, `--signing-key` and `--trust-chain-statement`.
    struct Signing {
        var certificate: String?
        var key: String?
        var trustChainStatements: [String] = []
    }

    /// `--database`, else $DATABASE_URL, else `provider.sqlite` in the provider's directory (created 0700).
    static func database(_ database: String?, directory: URL) throws -> ServiceDatabase {
        let databaseURL = database ?? ProcessInfo.processInfo.environment["DATABASE_URL"]
            ?? directory.appendingPathComponent("provider.sqlite").path
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try ServiceDatabase(url: databaseURL)
        } catch {
            throw UserFacingError("--database: \(error)")
        }
    }

    static func configuration(
        directory: URL, database: String?, baseURL: String?, testRoot: String?, appleApps: [String], androidApps: [String],
        authorityHints: [String], allowDevelopment: Bool, signing: Signing = Signing(), pdndTrust: [String] = []
    ) throws -> WalletProviderConfiguration {
        let db = try Self.database(database, directory: directory)
        var apple = try appleApps.map(parseAppleApp)
        var android = try androidApps.map(parseAndroidApp)
        if apple.isEmpty { apple = [TestIntegrity.appleApp] }
        if android.isEmpty { android = [TestIntegrity.androidApp] }
        var androidPolicy = AndroidAttestationPolicy(applications: android)
        var integrity: (any AndroidIntegrityVerifier)?
        var testRootCertificate: Certificate?
        if let testRoot {
            guard let pem = try? String(contentsOfFile: testRoot, encoding: .utf8), let root = try? Certificate(pemEncoded: pem),
                let spki = P256.Signing.PublicKey(root.publicKey)?.derRepresentation
            else { throw UserFacingError("--trust-test-attestation-root: \(testRoot) is not a PEM certificate") }
            androidPolicy.trustedRootKeys.append(spki)
            integrity = LocalIntegrityTokenVerifier(root: root)
            testRootCertificate = root
        }
        var appAttest = AppAttestPolicy(apps: apple, allowedEnvironments: allowDevelopment ? [.production, .development] : [.production])
        // The test root signs simulated App Attest credential certificates too (`AppAttestTestAuthority(sharing:)`).
        if let testRootCertificate { appAttest.trustedRoots.append(testRootCertificate) }
        return WalletProviderConfiguration(
            database: db, directory: directory, signingIdentity: try signingIdentity(signing, directory: directory),
            trustChainStatements: try signing.trustChainStatements.map { try MDocFiles.readText($0).trimmingCharacters(in: .whitespacesAndNewlines) },
            publicBaseURL: baseURL, authorityHints: authorityHints,
            apps: .init(apple: apple, android: android), appAttest: appAttest, android: androidPolicy,
            androidIntegrity: integrity, pdndTrust: try PDNDTrustFiles.trust(pdndTrust))
    }

    /// The configured key and chain, or the test chain kept in the provider directory (created on first use:
    /// `root.pem` is the trust anchor a relying party configures to accept this provider's attestations).
    static func signingIdentity(_ signing: Signing, directory: URL) throws -> ProviderSigningIdentity {
        let key: P256.Signing.PrivateKey
        let chain: [Data]
        switch (signing.certificate, signing.key) {
        case (let certificate?, let keyPath?):
            key = try MDocFiles.devicePrivateKey(keyPath)
            chain = try MDocFiles.certificates(certificate)
        case (nil, nil):
            let pki = try TestPKIDirectory(url: directory.appendingPathComponent("signing"), leafName: "wallet-provider").loadOrCreate(
                rootCommonName: "Tessera Test Wallet Provider Trust Anchor", leafCommonName: "Tessera Test Wallet Provider")
            key = pki.key
            chain = pki.chain
        default:
            throw UserFacingError("--signing-cert and --signing-key go together")
        }
        do {
            return try ProviderSigningIdentity(privateKey: key, certificateChain: chain)
        } catch {
            throw UserFacingError("--signing-cert: \(error.description)")
        }
    }

    /// `m=KIB,t=ITERATIONS,p=LANES`, each part optional (the RFC 9106 §4 low-memory values fill the rest).
    static func parseArgon2Cost(_ text: String) throws -> Argon2Parameters {
        let base = Argon2Parameters.rfc9106LowMemory
        var memory = base.memoryKiB, iterations = base.iterations, lanes = base.parallelism
        for part in text.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, let value = UInt32(pair[1]), value > 0 else {
                throw UserFacingError("--password-cost: \(part) is not NAME=POSITIVE-INTEGER")
            }
            switch pair[0] {
            case "m": memory = value
            case "t": iterations = value
            case "p": lanes = value
            default: throw UserFacingError("--password-cost: unknown part \(pair[0]) (m, t or p)")
            }
        }
        guard memory >= 8 * lanes, lanes <= 255 else { throw UserFacingError("--password-cost: m must be at least 8·p KiB, p at most 255") }
        return Argon2Parameters(memoryKiB: memory, iterations: iterations, parallelism: lanes)
    }

    static func parseAppleApp(_ text: String) throws -> AppAttestAppID {
        guard let dot = text.firstIndex(of: "."), dot != text.startIndex, text.index(after: dot) != text.endIndex else {
            throw UserFacingError("--apple-app must be TEAMID.BUNDLEID")
        }
        return AppAttestAppID(teamID: String(text[..<dot]), bundleID: String(text[text.index(after: dot)...]))
    }

    static func parseAndroidApp(_ text: String) throws -> AndroidApplication {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let digest = Data(hexString: String(parts[1])), digest.count == 32 else {
            throw UserFacingError("--android-app must be PACKAGE:SHA256HEX")
        }
        return AndroidApplication(packageName: String(parts[0]), signingCertificateDigests: [digest])
    }
}

extension Data {
    init?(hexString: String) {
        guard hexString.utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = hexString.startIndex
        while index < hexString.endIndex {
            let next = hexString.index(index, offsetBy: 2)
            guard let byte = UInt8(hexString[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }
}
